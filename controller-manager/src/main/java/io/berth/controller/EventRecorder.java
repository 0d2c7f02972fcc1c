package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Records Kubernetes Events about objects, as client-go's {@code record.EventRecorder} does for
 * kube-controller-manager: type {@code Normal} or {@code Warning}, an upstream reason ({@code SuccessfulCreate},
 * {@code ScalingReplicaSet}) and a message. Recording never blocks the caller on the API server and never throws;
 * repeated identical events are aggregated (count and lastTimestamp). Thread-safe.
 */
public interface EventRecorder {

  String NORMAL = "Normal";
  String WARNING = "Warning";

  /** Records an event about {@code object}; {@code messageFormat} is a {@link String#format} pattern. */
  void event(HasMetadata object, String type, String reason, String messageFormat, Object... args);

  /** A recorder that drops everything. */
  EventRecorder NOOP = (object, type, reason, messageFormat, args) -> { };
}
