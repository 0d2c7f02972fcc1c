package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * The writes to pods the scheduler itself makes outside binding: status patches (the
 * {@code PodScheduled} and {@code DisruptionTarget} conditions, nominations) and the graceful
 * deletion of preemption victims. The daemon's implementation calls the API server
 * ({@link io.berth.framework.runtime.ClientPodApi}); the throughput harness applies them in
 * memory. A pod that is already gone is not an error: the methods return false. Other failures
 * are thrown as runtime exceptions. Implementations are thread-safe; callers are the scheduling
 * thread, binding threads and preemption's parallel workers.
 */
public interface PodApi {
  /** Applies {@code patch} to the pod's status; false when the pod no longer exists. */
  boolean patchStatus(Pod pod, PodStatusPatch patch);

  /** Deletes the pod with its own grace period; false when it no longer exists. */
  boolean delete(Pod pod);

  /** For a runtime without an API client: every call fails, naming {@code owner}. */
  static PodApi unavailable(String owner) {
    return new PodApi() {
      @Override
      public boolean patchStatus(Pod pod, PodStatusPatch patch) {
        throw new IllegalStateException(owner + " has no API client");
      }

      @Override
      public boolean delete(Pod pod) {
        throw new IllegalStateException(owner + " has no API client");
      }
    };
  }
}
