package io.berth.informer;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything that happened to one key while it waited in a {@link DeltaFIFO}, oldest first; never
 * empty. Handed whole to the pop process function. Immutable.
 */
public record Deltas<T>(String key, List<Delta<T>> deltas) {

  public Deltas {
    Objects.requireNonNull(key, "key");
    deltas = List.copyOf(deltas);
    if (deltas.isEmpty()) {
      throw new IllegalArgumentException("empty deltas for " + key);
    }
  }

  /** The oldest delta. */
  public Delta<T> oldest() {
    return deltas.get(0);
  }

  /** The newest delta. */
  public Delta<T> newest() {
    return deltas.get(deltas.size() - 1);
  }

  /** The tombstone, when the newest delta is a deletion whose final state is unknown. */
  public Optional<DeletedFinalStateUnknown<T>> tombstone() {
    Delta<T> newest = newest();
    return newest.finalStateUnknown()
        ? Optional.of(new DeletedFinalStateUnknown<>(key, newest.object()))
        : Optional.empty();
  }
}
