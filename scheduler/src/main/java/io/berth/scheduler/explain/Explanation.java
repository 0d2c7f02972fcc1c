package io.berth.scheduler.explain;

import java.util.List;
import java.util.Optional;

/**
 * The answer to "why is this pod (not) where it is": its recorded attempts, latest last, where it
 * waits in the queue now, and the latest attempt's {@link Summary}. What
 * {@code GET /debug/explain/{namespace}/{pod}} renders. Immutable.
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param attempts the recorded attempts, oldest first (at most the per-pod ring size)
 * @param queue where the pod waits now, if it is pending in this scheduler's queue
 */
public record Explanation(String namespace, String name, List<Attempt> attempts,
    Optional<QueueState> queue) {
  public Explanation {
    attempts = List.copyOf(attempts);
  }

  /** The latest attempt, if any was recorded. */
  public Optional<Attempt> latest() {
    return attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.get(attempts.size() - 1));
  }

  /** The latest attempt's summary, if any attempt was recorded. */
  public Optional<Summary> summary() {
    return latest().map(a -> Summary.of(a.filter()));
  }

  /** Whether there is nothing to say: no attempt recorded and not queued. */
  public boolean isEmpty() {
    return attempts.isEmpty() && queue.isEmpty();
  }
}
