package io.berth.scheduler.record;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * One line of a recording: at {@code epochMillis} the scheduler's informer reported {@code type} for
 * {@code object}, an object of {@code kind} ({@code Pod}, {@code Node}, ...) and {@code apiVersion}.
 * Immutable; the object is the informer's (or the reader's) and must not be mutated.
 *
 * @param epochMillis when the informer delivered the notification (wall clock, milliseconds)
 * @param type what happened
 * @param kind the object's kind, as the API names it
 * @param apiVersion the object's API version ({@code v1}, {@code scheduling.x-k8s.io/v1alpha1})
 * @param object the object: the new state for ADDED and MODIFIED, the last state for DELETED
 */
public record RecordedEvent(long epochMillis, Type type, String kind, String apiVersion,
    HasMetadata object) {

  /** The event types, as a watch names them. */
  public enum Type { ADDED, MODIFIED, DELETED }

  public RecordedEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(apiVersion, "apiVersion");
    Objects.requireNonNull(object, "object");
  }

  /** {@code namespace/name}, or {@code name} for a cluster-scoped object. */
  public String key() {
    String ns = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return ns == null || ns.isEmpty() ? name : ns + "/" + name;
  }
}
