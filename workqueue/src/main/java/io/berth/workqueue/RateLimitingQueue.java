package io.berth.workqueue;

/**
 * A {@link DelayingQueue} that asks a {@link RateLimiter} how long an item should wait before it
 * is retried. Thread-safe, like {@link WorkQueue}.
 *
 * <p>Remember to call {@link #forget} once an item succeeds (or is given up on): the limiter
 * tracks each item's failures until then.
 */
public interface RateLimitingQueue<T> extends DelayingQueue<T> {

  /** Adds {@code item} after the delay the rate limiter gives it (counting one more failure). */
  void addRateLimited(T item);

  /**
   * Tells the rate limiter to stop tracking {@code item}, whether it finally succeeded or failed
   * for good. Only clears the limiter's state: {@link #done} must still be called.
   */
  void forget(T item);

  /** How many times {@code item} has been requeued through {@link #addRateLimited}. */
  int numRequeues(T item);
}
