package io.berth.workqueue;

import java.time.Duration;

/** The standard rate limiters of client-go, ready-made. Stateless factory. */
public final class RateLimiters {

  private RateLimiters() {}

  /**
   * client-go's {@code DefaultControllerRateLimiter}: the worse of a per-item exponential backoff
   * (5 ms doubling up to 1000 s) and an overall token bucket (10 per second, burst 100) that only
   * slows down bursts of retries across all items.
   */
  public static <T> RateLimiter<T> defaultControllerRateLimiter() {
    return defaultControllerRateLimiter(SystemClock.INSTANCE);
  }

  /** {@link #defaultControllerRateLimiter()} with its token bucket timed by {@code clock}. */
  public static <T> RateLimiter<T> defaultControllerRateLimiter(Clock clock) {
    return new MaxOfRateLimiter<T>(
        new ItemExponentialFailureRateLimiter<T>(
            Duration.ofMillis(5), Duration.ofSeconds(1000)),
        new BucketRateLimiter<T>(10, 100, clock));
  }

  /** client-go's {@code DefaultItemBasedRateLimiter}: 1 ms doubling up to 1000 s, per item. */
  public static <T> RateLimiter<T> defaultItemBasedRateLimiter() {
    return new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1000));
  }
}
