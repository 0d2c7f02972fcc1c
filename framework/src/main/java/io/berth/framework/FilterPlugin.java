package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Filter: whether the pod can run on a node. Anything but Success excludes the node;
 * Unschedulable lets preemption try the node, UnschedulableAndUnresolvable does not. Called on
 * many threads at once (one node each): must be thread-safe and must not mutate the NodeInfo.
 */
public interface FilterPlugin extends Plugin {
  Status filter(CycleState state, Pod pod, NodeInfo nodeInfo);
}
