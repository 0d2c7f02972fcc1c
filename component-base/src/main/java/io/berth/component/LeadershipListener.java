package io.berth.component;

/**
 * What a {@link LeaderElection} tells its owner. Calls come from the election's own thread, one at a time and in
 * order; they must return quickly (hand long work to another thread). Implementations need not be thread-safe
 * with respect to each other's calls, but usually share state with other threads and say how it is guarded.
 */
public interface LeadershipListener {

  /** This instance now holds the Lease: start working. */
  void startedLeading();

  /**
   * This instance no longer holds the Lease, because another instance took it, a renewal missed its deadline, or
   * the election was stopped. Called at most once per {@link #startedLeading()}, and only after it.
   */
  void stoppedLeading();

  /** The Lease is now held by {@code identity} (possibly this instance); for logging. */
  default void newLeader(String identity) {
  }
}
