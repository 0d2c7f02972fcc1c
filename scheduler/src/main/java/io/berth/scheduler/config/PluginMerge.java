package io.berth.scheduler.config;

import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * kube-scheduler v1.32's {@code mergePluginSet} (pkg/scheduler/apis/config/v1/default_plugins.go):
 * how a user's plugin set at one extension point (or multiPoint) combines with the default one.
 *
 * <p>The result's enabled list is the default plugins in default order, minus those the user
 * disabled (all of them when the user disabled {@code "*"}); a default the user also enabled is
 * replaced in place by the user's entry (so the user's weight wins and the order stays); then the
 * user's other enabled plugins follow in the user's order (a duplicate among them is kept, for the
 * runtime to reject, as upstream). The disabled list is the user's plus the default's: the runtime
 * needs it to keep multiPoint plugins off a point where they were disabled. Stateless.
 */
final class PluginMerge {
  static final String ALL = "*";

  private PluginMerge() {}

  static PluginSet merge(PluginSet defaults, PluginSet custom) {
    Set<String> disabledNames = new LinkedHashSet<>(custom.disabled());
    disabledNames.addAll(defaults.disabled());
    List<String> disabled = new ArrayList<>(custom.disabled());
    disabled.addAll(defaults.disabled());

    // name -> index of the user's (last) entry for it, as upstream's map does
    Map<String, Integer> customIndex = new HashMap<>();
    for (int i = 0; i < custom.enabled().size(); i++) {
      customIndex.put(custom.enabled().get(i).name(), i);
    }
    Set<Integer> replaced = new HashSet<>();
    List<PluginRef> enabled = new ArrayList<>();
    if (!disabledNames.contains(ALL)) {
      for (PluginRef plugin : defaults.enabled()) {
        if (disabledNames.contains(plugin.name())) {
          continue;
        }
        Integer index = customIndex.get(plugin.name());
        if (index == null) {
          enabled.add(plugin);
        } else {
          enabled.add(custom.enabled().get(index));
          replaced.add(index);
        }
      }
    }
    for (int i = 0; i < custom.enabled().size(); i++) {
      if (!replaced.contains(i)) {
        enabled.add(custom.enabled().get(i));
      }
    }
    return new PluginSet(enabled, disabled);
  }
}
