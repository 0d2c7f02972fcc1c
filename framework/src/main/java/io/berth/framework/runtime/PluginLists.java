package io.berth.framework.runtime;

import io.berth.framework.BindPlugin;
import io.berth.framework.FilterPlugin;
import io.berth.framework.PermitPlugin;
import io.berth.framework.Plugin;
import io.berth.framework.PostBindPlugin;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.ReservePlugin;
import io.berth.framework.ScorePlugin;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Resolves a profile's plugin sets into ordered plugin lists per extension point, as upstream's
 * {@code expandMultiPointPlugins}: plugins enabled explicitly at an extension point come first in
 * their configured order, then the multiPoint plugins that implement that point and are neither
 * disabled ({@code "*"} disables all) nor already enabled there. Also resolves score weights
 * (the explicit score weight, else the multiPoint weight; 0 means 1). Immutable result; built once
 * per profile on the start-up thread.
 */
final class PluginLists {
  final Map<ExtensionPoint, List<Plugin>> byPoint = new EnumMap<>(ExtensionPoint.class);
  final Map<String, Integer> scoreWeights = new HashMap<>();

  static Class<?> interfaceOf(ExtensionPoint point) {
    return switch (point) {
      case PRE_ENQUEUE -> PreEnqueuePlugin.class;
      case QUEUE_SORT -> QueueSortPlugin.class;
      case PRE_FILTER -> PreFilterPlugin.class;
      case FILTER -> FilterPlugin.class;
      case POST_FILTER -> PostFilterPlugin.class;
      case PRE_SCORE -> PreScorePlugin.class;
      case SCORE -> ScorePlugin.class;
      case RESERVE -> ReservePlugin.class;
      case PERMIT -> PermitPlugin.class;
      case PRE_BIND -> PreBindPlugin.class;
      case BIND -> BindPlugin.class;
      case POST_BIND -> PostBindPlugin.class;
    };
  }

  /** Upstream's name of the extension point ("PreFilter"), for metrics and messages. */
  static String displayName(ExtensionPoint point) {
    String n = point.configName();
    return Character.toUpperCase(n.charAt(0)) + n.substring(1);
  }

  /** Names of every plugin the profile enables anywhere, in first-seen order. */
  static Set<String> enabledNames(ProfileConfig profile) {
    Set<String> names = new java.util.LinkedHashSet<>();
    for (PluginRef ref : profile.multiPoint().enabled()) {
      names.add(ref.name());
    }
    for (ExtensionPoint point : ExtensionPoint.values()) {
      for (PluginRef ref : profile.pluginSet(point).enabled()) {
        names.add(ref.name());
      }
    }
    return names;
  }

  static PluginLists resolve(ProfileConfig profile, Map<String, Plugin> instances) {
    PluginLists lists = new PluginLists();
    Map<String, Integer> multiPointWeights = new HashMap<>();
    for (PluginRef ref : profile.multiPoint().enabled()) {
      multiPointWeights.put(ref.name(), ref.weight());
    }
    for (ExtensionPoint point : ExtensionPoint.values()) {
      Class<?> type = interfaceOf(point);
      PluginSet set = profile.pluginSet(point);
      Set<String> disabled = new HashSet<>(set.disabled());
      boolean allDisabled = disabled.contains("*");
      Map<String, Plugin> ordered = new LinkedHashMap<>();
      Set<String> explicit = new HashSet<>();
      for (PluginRef ref : set.enabled()) {
        Plugin plugin = instances.get(ref.name());
        if (!type.isInstance(plugin)) {
          throw new IllegalArgumentException("profiles[" + profile.schedulerName() + "].plugins."
              + point.configName() + ": plugin \"" + ref.name() + "\" does not extend "
              + displayName(point) + " plugin");
        }
        if (ordered.putIfAbsent(ref.name(), plugin) != null) {
          throw new IllegalArgumentException("profiles[" + profile.schedulerName() + "].plugins."
              + point.configName() + ": plugin \"" + ref.name() + "\" already registered as \""
              + displayName(point) + "\"");
        }
        explicit.add(ref.name());
        if (point == ExtensionPoint.SCORE) {
          lists.scoreWeights.put(ref.name(), ref.weight() == 0 ? 1 : ref.weight());
        }
      }
      for (PluginRef ref : profile.multiPoint().enabled()) {
        Plugin plugin = instances.get(ref.name());
        if (!type.isInstance(plugin) || allDisabled || disabled.contains(ref.name())
            || explicit.contains(ref.name())) {
          continue;
        }
        if (ordered.putIfAbsent(ref.name(), plugin) != null) {
          throw new IllegalArgumentException("profiles[" + profile.schedulerName()
              + "].plugins.multiPoint: plugin \"" + ref.name() + "\" already registered as \""
              + displayName(point) + "\"");
        }
        if (point == ExtensionPoint.SCORE) {
          int w = multiPointWeights.getOrDefault(ref.name(), 0);
          lists.scoreWeights.put(ref.name(), w == 0 ? 1 : w);
        }
      }
      lists.byPoint.put(point, List.copyOf(new ArrayList<>(ordered.values())));
    }
    return lists;
  }

  @SuppressWarnings("unchecked")
  <T> List<T> get(ExtensionPoint point) {
    return (List<T>) byPoint.getOrDefault(point, List.of());
  }
}
