package io.berth.plugins.capacityscheduling;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Which pods count against a quota, as scheduler-plugins' CapacityScheduling: a pod on a node (or reserved for one)
 * counts until it reaches a terminal phase or is being deleted (its share is free for others from the moment of
 * deletion, so reclaim does not wait for the grace period to take the next victim). Stateless.
 */
final class QuotaPods {
  private QuotaPods() {}

  static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  static boolean assigned(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
  }

  /** Whether an assigned pod holds its share now. */
  static boolean counts(Pod pod) {
    return assigned(pod) && !terminal(pod) && pod.getMetadata().getDeletionTimestamp() == null;
  }

  /** Nominated to a node by preemption and not on one yet. */
  static boolean nominated(Pod pod) {
    String n = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return !assigned(pod) && n != null && !n.isEmpty() && pod.getMetadata().getDeletionTimestamp() == null;
  }
}
