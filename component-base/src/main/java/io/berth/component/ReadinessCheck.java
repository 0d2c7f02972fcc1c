package io.berth.component;

import java.util.List;

/**
 * What {@code GET /readyz} asks: the reasons the daemon is not ready, none when it is. Called from HTTP threads at
 * any time, so implementations are thread-safe, fast and never block.
 *
 * <p>As upstream's healthz, each condition has a name that {@code /readyz?exclude=NAME} leaves out:
 * {@link #INFORMER_SYNC}, {@link #LEADER_ELECTION} and {@link #SHUTDOWN}. A standby replica is not ready by the
 * plain {@code /readyz} (DESIGN.md's contract: ready means synced and leading), but is by
 * {@code /readyz?exclude=leaderElection}, which is what a readiness probe of a replicated Deployment asks.
 */
@FunctionalInterface
public interface ReadinessCheck {

  /** The informers' caches have synced. */
  String INFORMER_SYNC = "informer-sync";
  /** This instance leads, or leader election is off (upstream's check name). */
  String LEADER_ELECTION = "leaderElection";
  /** The daemon is not shutting down. */
  String SHUTDOWN = "shutdown";

  /** The reasons the daemon is not ready now, in a stable order; empty when ready. */
  List<String> unreadyReasons();

  /**
   * The reasons, leaving out the named conditions; a check that names none of its conditions ignores
   * {@code excluded}.
   */
  default List<String> unreadyReasons(java.util.Set<String> excluded) {
    return unreadyReasons();
  }

  /** A check that always passes. */
  ReadinessCheck ALWAYS_READY = List::of;
}
