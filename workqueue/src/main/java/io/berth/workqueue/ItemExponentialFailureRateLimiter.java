package io.berth.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-item exponential backoff: the n-th failure of an item (counting from zero) waits {@code
 * baseDelay * 2^n}, capped at {@code maxDelay}, with client-go's arithmetic (the product is
 * computed in floating point, so it saturates at {@code maxDelay} instead of overflowing).
 * Thread-safe: failure counts live in a concurrent map updated atomically per item.
 */
public final class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {

  /** Failures per item since it was last forgotten; thread-safe map, atomic per-key updates. */
  private final ConcurrentHashMap<Object, Integer> failures = new ConcurrentHashMap<>();

  private final long baseDelayNanos;
  private final Duration maxDelay;
  private final long maxDelayNanos;

  /**
   * @param baseDelay the first retry's delay
   * @param maxDelay the longest delay ever returned
   */
  public ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay) {
    this.baseDelayNanos = Objects.requireNonNull(baseDelay, "baseDelay").toNanos();
    this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
    this.maxDelayNanos = maxDelay.toNanos();
  }

  @Override
  public Duration when(T item) {
    int exp = failures.merge(item, 1, Integer::sum) - 1;
    double backoff = baseDelayNanos * Math.pow(2, exp);
    if (backoff > Long.MAX_VALUE) {
      return maxDelay;
    }
    long calculated = (long) backoff;
    if (calculated > maxDelayNanos) {
      return maxDelay;
    }
    return Duration.ofNanos(calculated);
  }

  @Override
  public void forget(T item) {
    failures.remove(item);
  }

  @Override
  public int numRequeues(T item) {
    return failures.getOrDefault(item, 0);
  }
}
