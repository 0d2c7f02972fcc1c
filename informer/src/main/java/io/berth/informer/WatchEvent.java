package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;
import java.util.Optional;

/**
 * One item of a {@link WatchStream}: an object event (ADDED, MODIFIED, DELETED), a BOOKMARK that
 * only advances the resourceVersion, an ERROR carrying the server's status (for example 410 Gone
 * when the watched resourceVersion is too old) or the failure that broke the stream, or CLOSED,
 * the normal end of the stream. ERROR and CLOSED are terminal. Immutable.
 */
public final class WatchEvent<T> {

  /** The event kinds. */
  public enum Type {
    ADDED,
    MODIFIED,
    DELETED,
    BOOKMARK,
    ERROR,
    CLOSED;

    /** Whether no event follows one of this type. */
    public boolean isTerminal() {
      return this == ERROR || this == CLOSED;
    }
  }

  private final Type type;
  private final T object;
  private final String resourceVersion;
  private final Throwable cause;

  private WatchEvent(Type type, T object, String resourceVersion, Throwable cause) {
    this.type = type;
    this.object = object;
    this.resourceVersion = resourceVersion;
    this.cause = cause;
  }

  /** An ADDED, MODIFIED or DELETED event for {@code object}, at the object's resourceVersion. */
  public static <T extends HasMetadata> WatchEvent<T> of(Type type, T object) {
    if (type != Type.ADDED && type != Type.MODIFIED && type != Type.DELETED) {
      throw new IllegalArgumentException("not an object event: " + type);
    }
    Objects.requireNonNull(object, "object");
    return new WatchEvent<>(type, object, Cache.resourceVersion(object), null);
  }

  /** A BOOKMARK at {@code resourceVersion}. */
  public static <T> WatchEvent<T> bookmark(String resourceVersion) {
    return new WatchEvent<>(Type.BOOKMARK, null, Objects.requireNonNull(resourceVersion), null);
  }

  /**
   * An ERROR event: the server ended the watch with a status (a {@link KubernetesClientException}
   * whose code is, for example, 410), or the stream failed (undecodable event, protocol error).
   */
  public static <T> WatchEvent<T> error(Throwable error) {
    return new WatchEvent<>(Type.ERROR, null, "", Objects.requireNonNull(error, "error"));
  }

  /** The normal end of the stream: the server closed it (for example at its timeout) or we did. */
  public static <T> WatchEvent<T> closed() {
    return new WatchEvent<>(Type.CLOSED, null, "", null);
  }

  public Type type() {
    return type;
  }

  /** The object of an ADDED, MODIFIED or DELETED event. */
  public Optional<T> object() {
    return Optional.ofNullable(object);
  }

  /** The resourceVersion this event moves the watch to; {@code ""} for ERROR and CLOSED. */
  public String resourceVersion() {
    return resourceVersion;
  }

  /** For ERROR, the server's status or the failure; empty otherwise. */
  public Optional<Throwable> cause() {
    return Optional.ofNullable(cause);
  }

  @Override
  public String toString() {
    return "WatchEvent[" + type + (resourceVersion.isEmpty() ? "" : " rv=" + resourceVersion)
        + (cause == null ? "" : " cause=" + cause) + "]";
  }
}
