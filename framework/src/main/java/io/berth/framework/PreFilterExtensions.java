package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Incremental updates of a PreFilter plugin's cycle state when the scheduler evaluates "what if
 * this pod were on / removed from this node" (nominated pods, preemption). Called on the thread
 * evaluating that node, on a state the caller owns.
 */
public interface PreFilterExtensions {
  Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd, NodeInfo nodeInfo);

  Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove, NodeInfo nodeInfo);
}
