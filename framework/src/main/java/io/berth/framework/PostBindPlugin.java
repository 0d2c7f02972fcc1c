package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/** PostBind: informational, after a successful bind. Runs on a binding thread; must not fail. */
public interface PostBindPlugin extends Plugin {
  void postBind(CycleState state, Pod pod, String nodeName);
}
