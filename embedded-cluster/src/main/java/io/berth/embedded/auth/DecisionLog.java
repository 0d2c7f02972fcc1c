package io.berth.embedded.auth;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * The most recent authorization decisions, oldest first. Bounded: beyond {@code capacity} (100,000 by default in
 * the embedded cluster) the oldest decisions are dropped and counted in {@link #dropped()}, so a coverage test can
 * tell that it read an incomplete record.
 *
 * <p>Thread-safe: every method synchronizes on the log.
 */
public final class DecisionLog {

  /** The default capacity. */
  public static final int DEFAULT_CAPACITY = 100_000;

  private final int capacity;
  // guarded by this
  private final Deque<AuthorizationDecision> decisions = new ArrayDeque<>();
  // guarded by this
  private long dropped;

  public DecisionLog(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("the decision log capacity must be positive, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** Appends a decision; called by the authorizer. */
  public synchronized void record(AuthorizationDecision decision) {
    if (decisions.size() == capacity) {
      decisions.removeFirst();
      dropped++;
    }
    decisions.addLast(decision);
  }

  /** A snapshot of the kept decisions, oldest first. */
  public synchronized List<AuthorizationDecision> decisions() {
    return new ArrayList<>(decisions);
  }

  /** A snapshot of the kept decisions that match {@code filter}, oldest first. */
  public synchronized List<AuthorizationDecision> decisions(Predicate<AuthorizationDecision> filter) {
    return decisions.stream().filter(filter).toList();
  }

  /** How many decisions were dropped for capacity since the last {@link #clear()}. */
  public synchronized long dropped() {
    return dropped;
  }

  public synchronized void clear() {
    decisions.clear();
    dropped = 0;
  }
}
