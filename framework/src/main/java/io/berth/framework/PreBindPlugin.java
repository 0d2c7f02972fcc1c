package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * PreBind: work that must happen before the Binding is created (e.g. binding volumes). Anything
 * but Success aborts binding: the pod is unreserved, forgotten and requeued. Runs on a binding
 * thread.
 *
 * <p>{@link #preBindPreFlight} (upstream 1.34+, for NominatedNodeNameForExpectation) says,
 * cheaply and before Permit's wait ends, whether {@link #preBind} will have work to do: Success if
 * it will, Skip if not, Error to fail the binding cycle; any other code is treated as an error.
 */
public interface PreBindPlugin extends Plugin {
  Status preBind(CycleState state, Pod pod, String nodeName);

  /**
   * Whether PreBind will do work for the pod on the node. Upstream requires every PreBind plugin
   * to answer; a Berth plugin that does not override this is assumed to have work to do
   * (Success), so the scheduler publishes the expected placement rather than miss it.
   */
  default Status preBindPreFlight(CycleState state, Pod pod, String nodeName) {
    return Status.SUCCESS;
  }
}
