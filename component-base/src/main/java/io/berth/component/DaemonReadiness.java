package io.berth.component;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The readiness rule of DESIGN.md as a value: ready when every informer has synced, this instance leads (or
 * election is off), and the daemon is not shutting down. {@code /readyz} lists the failing conditions, in that
 * order. Thread-safe: the three flags are volatile, each set by one thread; the leader description is read on
 * demand.
 */
final class DaemonReadiness implements ReadinessCheck {

  static final String NOT_SYNCED = "informers have not synced";
  static final String NOT_LEADING = "not leading";
  static final String SHUTTING_DOWN = "shutting down";

  private final boolean electionEnabled;
  private final Supplier<String> leaderDescription;
  // set once by the startup thread
  private volatile boolean synced;
  // set by the leadership callbacks
  private volatile boolean leading;
  // set once by the terminating thread
  private volatile boolean shuttingDown;

  /**
   * @param electionEnabled whether leadership is required
   * @param leaderDescription what to add to "not leading" (who holds the Lease); called from HTTP threads
   */
  DaemonReadiness(boolean electionEnabled, Supplier<String> leaderDescription) {
    this.electionEnabled = electionEnabled;
    this.leaderDescription = leaderDescription;
  }

  void synced() {
    synced = true;
  }

  void leading(boolean value) {
    leading = value;
  }

  void shuttingDown() {
    shuttingDown = true;
  }

  boolean isReady() {
    return unreadyReasons().isEmpty();
  }

  @Override
  public List<String> unreadyReasons() {
    return unreadyReasons(Set.of());
  }

  @Override
  public List<String> unreadyReasons(Set<String> excluded) {
    List<String> reasons = new ArrayList<>(3);
    if (!synced && !excluded.contains(INFORMER_SYNC)) {
      reasons.add(NOT_SYNCED);
    }
    if (electionEnabled && !leading && !excluded.contains(LEADER_ELECTION)) {
      String leader = leaderDescription.get();
      reasons.add(leader.isEmpty() ? NOT_LEADING : NOT_LEADING + " (" + leader + ")");
    }
    if (shuttingDown && !excluded.contains(SHUTDOWN)) {
      reasons.add(SHUTTING_DOWN);
    }
    return reasons;
  }
}
