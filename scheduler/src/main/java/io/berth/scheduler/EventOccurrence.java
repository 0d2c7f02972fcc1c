package io.berth.scheduler;

import java.time.Instant;

/**
 * What one {@link KubernetesEventRecorder#event} call recorded: the regarding object's reference as upstream's
 * {@code reference.GetReference} takes it (apiVersion, kind, namespace, name, uid, resourceVersion; the namespace
 * empty or null for a cluster-scoped object), the event's type, reason, action and message, and when it happened.
 * Immutable.
 */
record EventOccurrence(String namespace, String name, String apiVersion, String kind, String uid,
    String resourceVersion, String type, String reason, String action, String message, Instant at) {

  /** The namespace the Event is written to: the object's, {@code default} for a cluster-scoped one (as upstream). */
  String eventNamespace() {
    return namespace == null || namespace.isEmpty() ? "default" : namespace;
  }
}
