package io.berth.workqueue;

import java.time.Duration;

/**
 * Decides how long an item waits before it is retried, like client-go's {@code
 * workqueue.RateLimiter}. Called by {@link RateLimitingQueue#addRateLimited} from any worker
 * thread, so implementations must be thread-safe. Per-item limiters remember each item's failures
 * until {@link #forget}; the caller is responsible for giving up after too many.
 */
public interface RateLimiter<T> {

  /** How long {@code item} should wait now; records one more failure for per-item limiters. */
  Duration when(T item);

  /** Stops tracking {@code item}, whether it finally succeeded or failed for good. */
  void forget(T item);

  /** How many failures {@code item} has had since it was last forgotten. */
  int numRequeues(T item);
}
