package io.berth.informer;

import java.util.Objects;

/**
 * A deletion the watch missed, detected when a relist no longer contained {@code key}:
 * {@code obj} is the last state this client knew, possibly stale (client-go's type of the same
 * name). Immutable; {@code obj} is shared, never mutate it.
 */
public record DeletedFinalStateUnknown<T>(String key, T obj) {

  public DeletedFinalStateUnknown {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(obj, "obj");
  }
}
