package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Bind: binds the pod to the node. Skip passes to the next Bind plugin; the first other status
 * ends binding. Runs on a binding thread.
 */
public interface BindPlugin extends Plugin {
  Status bind(CycleState state, Pod pod, String nodeName);
}
