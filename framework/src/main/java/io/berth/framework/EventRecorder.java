package io.berth.framework;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Records Kubernetes events about objects (Scheduled, FailedScheduling, Preempted). Thread-safe;
 * never blocks the caller on the API server. {@link #NOOP} discards.
 */
public interface EventRecorder {
  EventRecorder NOOP = (regarding, type, reason, action, message) -> { };

  /** {@code type} is "Normal" or "Warning". */
  void event(HasMetadata regarding, String type, String reason, String action, String message);
}
