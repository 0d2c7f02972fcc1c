package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * PreFilter: runs once per cycle before Filter, typically to precompute state into
 * {@link CycleState}. Skip means this plugin's Filter is skipped for the cycle; a rejection fails
 * the pod on every node. May narrow the nodes to filter with {@link PreFilterResult#nodes}. Runs
 * on the scheduling thread.
 */
public interface PreFilterPlugin extends Plugin {
  PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes);

  /** AddPod/RemovePod hooks so preemption and nominated pods can update the precomputed state. */
  default Optional<PreFilterExtensions> preFilterExtensions() {
    return Optional.empty();
  }
}
