package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Permit: the last gate before binding. Success allows, a rejection unreserves the pod, Wait parks
 * it as a {@link WaitingPod} until every waiting plugin allows it, one rejects it, or the shortest
 * timeout passes (a rejection). Runs on the scheduling thread.
 */
public interface PermitPlugin extends Plugin {
  PermitResult permit(CycleState state, Pod pod, String nodeName);
}
