package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Reserve: claims resources the plugin tracks itself once a node is chosen (on the scheduling
 * thread); Unreserve undoes it when a later step fails (on the scheduling or a binding thread).
 * Unreserve must be idempotent and must not fail.
 */
public interface ReservePlugin extends Plugin {
  Status reserve(CycleState state, Pod pod, String nodeName);

  void unreserve(CycleState state, Pod pod, String nodeName);
}
