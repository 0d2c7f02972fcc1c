package io.berth.scheduler.explain;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where a pending pod waits now, read from the scheduling queue when asked (not recorded).
 * Immutable.
 *
 * @param queue "active", "backoff", "unschedulable", "gated", or "inFlight" while being scheduled
 * @param reason why it is there: the plugins that rejected it (whose events can move it back), the
 *     gating PreEnqueue plugin, or the backoff
 * @param plugins the unschedulable (or gating) plugins
 * @param attempts scheduling attempts so far
 * @param backoffExpiry when its backoff ends (after which an event or the flush moves it to
 *     active); empty when it is not backing off
 */
public record QueueState(String queue, String reason, List<String> plugins, int attempts,
    Optional<Instant> backoffExpiry) {
  public QueueState {
    plugins = List.copyOf(plugins);
  }
}
