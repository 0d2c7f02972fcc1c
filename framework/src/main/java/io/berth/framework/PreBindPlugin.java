package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * PreBind: work that must happen before the Binding is created (e.g. binding volumes). Anything
 * but Success aborts binding: the pod is unreserved, forgotten and requeued. Runs on a binding
 * thread.
 */
public interface PreBindPlugin extends Plugin {
  Status preBind(CycleState state, Pod pod, String nodeName);
}
