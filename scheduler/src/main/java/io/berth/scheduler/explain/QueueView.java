package io.berth.scheduler.explain;

import java.util.Optional;

/**
 * Where a pod waits in a scheduler's queue now, for {@link Explainer}. Implementations read the
 * live scheduling queue and must be thread-safe; {@link #NONE} knows no queue.
 */
@FunctionalInterface
public interface QueueView {
  /** A view that knows no queue (for in-process users without a scheduler). */
  QueueView NONE = (namespace, name) -> Optional.empty();

  /** The pod's queue state, or empty when it is not pending here. */
  Optional<QueueState> state(String namespace, String name);
}
