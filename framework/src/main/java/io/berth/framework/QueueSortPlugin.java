package io.berth.framework;

/**
 * QueueSort: orders activeQ. Exactly one is enabled per profile, and all profiles must use the
 * same one. Must be a strict weak ordering; called under the queue's lock.
 */
public interface QueueSortPlugin extends Plugin {
  /** Whether {@code a} should be scheduled before {@code b}. */
  boolean less(QueuedPodInfo a, QueuedPodInfo b);
}
