package io.berth.workqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-item two-speed retry: the first {@code maxFastAttempts} failures of an item wait {@code
 * fastDelay}, every later one {@code slowDelay}, as client-go's {@code ItemFastSlowRateLimiter}.
 * Thread-safe: failure counts live in a concurrent map updated atomically per item.
 */
public final class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {

  /** Failures per item since it was last forgotten; thread-safe map, atomic per-key updates. */
  private final ConcurrentHashMap<Object, Integer> failures = new ConcurrentHashMap<>();

  private final Duration fastDelay;
  private final Duration slowDelay;
  private final int maxFastAttempts;

  /**
   * @param fastDelay the delay of the first {@code maxFastAttempts} retries
   * @param slowDelay the delay of every later retry
   * @param maxFastAttempts how many retries are fast
   */
  public ItemFastSlowRateLimiter(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
    this.fastDelay = Objects.requireNonNull(fastDelay, "fastDelay");
    this.slowDelay = Objects.requireNonNull(slowDelay, "slowDelay");
    this.maxFastAttempts = maxFastAttempts;
  }

  @Override
  public Duration when(T item) {
    int attempts = failures.merge(item, 1, Integer::sum);
    return attempts <= maxFastAttempts ? fastDelay : slowDelay;
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
