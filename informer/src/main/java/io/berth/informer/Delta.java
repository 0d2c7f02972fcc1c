package io.berth.informer;

import java.util.Objects;

/**
 * One change to one object: its type and the object's state after the change, or for a deletion
 * its last known state. When {@code finalStateUnknown} is true (only for {@link DeltaType#DELETED})
 * the deletion was inferred from a relist after the watch missed it, so {@code object} is the last
 * state this client saw and may be stale (client-go's {@code DeletedFinalStateUnknown}).
 * Immutable; the object is shared, never mutate it.
 */
public record Delta<T>(DeltaType type, T object, boolean finalStateUnknown) {

  public Delta {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(object, "object");
    if (finalStateUnknown && type != DeltaType.DELETED) {
      throw new IllegalArgumentException("only a DELETED delta can have an unknown final state");
    }
  }

  /** A delta of the given type with a known object state. */
  public static <T> Delta<T> of(DeltaType type, T object) {
    return new Delta<>(type, object, false);
  }

  /** A deletion inferred from a relist, carrying the last known state. */
  public static <T> Delta<T> tombstone(T lastKnown) {
    return new Delta<>(DeltaType.DELETED, lastKnown, true);
  }
}
