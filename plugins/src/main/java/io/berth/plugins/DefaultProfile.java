package io.berth.plugins;

import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The default profile's plugins, in kube-scheduler v1.32's order and with its score weights, as
 * one {@code multiPoint} set (the runtime expands it to every extension point each plugin
 * implements). The one place where defaults live. Immutable.
 */
public final class DefaultProfile {
  /** kube-scheduler's default scheduler name. */
  public static final String DEFAULT_SCHEDULER_NAME = "default-scheduler";

  private static final List<PluginRef> MULTI_POINT = List.of(
      PluginRef.of("SchedulingGates"),
      PluginRef.of("PrioritySort"),
      PluginRef.of("NodeUnschedulable"),
      PluginRef.of("NodeName"),
      new PluginRef("TaintToleration", 3),
      new PluginRef("NodeAffinity", 2),
      PluginRef.of("NodePorts"),
      new PluginRef("NodeResourcesFit", 1),
      PluginRef.of("VolumeRestrictions"),
      PluginRef.of("VolumeBinding"),
      new PluginRef("PodTopologySpread", 2),
      new PluginRef("InterPodAffinity", 2),
      // before DefaultPreemption, as upstream: deallocating an idle claim beats evicting a pod
      PluginRef.of("DynamicResources"),
      PluginRef.of("DefaultPreemption"),
      new PluginRef("NodeResourcesBalancedAllocation", 1),
      new PluginRef("ImageLocality", 1),
      PluginRef.of("DefaultBinder"));

  private DefaultProfile() {}

  /**
   * The default multiPoint set, restricted to the plugins {@code registered} knows (so a build
   * that lacks a plugin still starts; {@link InTreeRegistry} registers all of them).
   */
  public static PluginSet multiPoint(java.util.function.Predicate<String> registered) {
    List<PluginRef> refs = new ArrayList<>();
    for (PluginRef ref : MULTI_POINT) {
      if (registered.test(ref.name())) {
        refs.add(ref);
      }
    }
    return new PluginSet(refs, List.of());
  }

  /** Every default plugin name, in order. */
  public static List<String> names() {
    return MULTI_POINT.stream().map(PluginRef::name).toList();
  }
}
