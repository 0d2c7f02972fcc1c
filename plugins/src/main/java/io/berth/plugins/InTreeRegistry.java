package io.berth.plugins;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.capacityscheduling.CapacityScheduling;
import io.berth.plugins.coscheduling.Coscheduling;
import io.berth.plugins.defaultbinder.DefaultBinder;
import io.berth.plugins.defaultpreemption.DefaultPreemption;
import io.berth.plugins.imagelocality.ImageLocality;
import io.berth.plugins.interpodaffinity.InterPodAffinity;
import io.berth.plugins.nodeaffinity.NodeAffinity;
import io.berth.plugins.nodename.NodeName;
import io.berth.plugins.nodeports.NodePorts;
import io.berth.plugins.noderesources.NodeResourcesBalancedAllocation;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.berth.plugins.podtopologyspread.PodTopologySpread;
import io.berth.plugins.nodeunschedulable.NodeUnschedulable;
import io.berth.plugins.queuesort.PrioritySort;
import io.berth.plugins.schedulinggates.SchedulingGates;
import io.berth.plugins.tainttoleration.TaintToleration;
import io.berth.plugins.topologyplacement.TopologyPlacement;
import io.berth.plugins.dynamicresources.DynamicResources;
import io.berth.plugins.volumebinding.VolumeBinding;
import io.berth.plugins.volumerestrictions.VolumeRestrictions;

/**
 * The in-tree plugins: every plugin Berth ships, by upstream name. The one place plugins are
 * registered; the scheduler adds out-of-tree plugins found on the class path. Stateless.
 */
public final class InTreeRegistry {
  private InTreeRegistry() {}

  /** A new registry holding every in-tree plugin. */
  public static Registry create() {
    return new Registry()
        .register(SchedulingGates.NAME, SchedulingGates::create)
        .register(PrioritySort.NAME, PrioritySort::create)
        .register(NodeUnschedulable.NAME, NodeUnschedulable::create)
        .register(NodeName.NAME, NodeName::create)
        .register(TaintToleration.NAME, TaintToleration::create)
        .register(NodeAffinity.NAME, NodeAffinity::create)
        .register(NodePorts.NAME, NodePorts::create)
        .register(NodeResourcesFit.NAME, NodeResourcesFit::create)
        .register(VolumeRestrictions.NAME, VolumeRestrictions::create)
        .register(VolumeBinding.NAME, VolumeBinding::create)
        .register(PodTopologySpread.NAME, PodTopologySpread::create)
        .register(InterPodAffinity.NAME, InterPodAffinity::create)
        .register(DynamicResources.NAME, DynamicResources::create)
        .register(DefaultPreemption.NAME, DefaultPreemption::create)
        .register(NodeResourcesBalancedAllocation.NAME, NodeResourcesBalancedAllocation::create)
        .register(ImageLocality.NAME, ImageLocality::create)
        .register(DefaultBinder.NAME, DefaultBinder::create)
        .register(Coscheduling.NAME, Coscheduling::create)
        .register(CapacityScheduling.NAME, CapacityScheduling::create)
        .register(TopologyPlacement.NAME, TopologyPlacement::create);
  }
}
