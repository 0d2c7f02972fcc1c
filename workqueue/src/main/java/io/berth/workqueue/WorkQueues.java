package io.berth.workqueue;

/**
 * Factory for the queues of this package. A queue's {@code name} labels its metrics ({@code
 * name="..."}); an empty name means no metrics at all. Without a {@link Clock} the queues use
 * {@link SystemClock}; without a {@link MetricsProvider}, {@link MetricsProvider#NOOP}.
 *
 * <p>Every queue returned is thread-safe and owned by its creator, who must shut it down. Queues
 * start no thread of their own.
 */
public final class WorkQueues {

  private WorkQueues() {}

  /** A plain work queue without metrics. */
  public static <T> WorkQueue<T> newQueue() {
    return newDelayingQueue("", SystemClock.INSTANCE, MetricsProvider.NOOP);
  }

  /** A plain work queue publishing its metrics under {@code name} through {@code metrics}. */
  public static <T> WorkQueue<T> newQueue(String name, Clock clock, MetricsProvider metrics) {
    return newDelayingQueue(name, clock, metrics);
  }

  /** A delaying queue without metrics. */
  public static <T> DelayingQueue<T> newDelayingQueue() {
    return newDelayingQueue("", SystemClock.INSTANCE, MetricsProvider.NOOP);
  }

  /** A delaying queue publishing its metrics under {@code name} through {@code metrics}. */
  public static <T> DelayingQueue<T> newDelayingQueue(
      String name, Clock clock, MetricsProvider metrics) {
    return new DelayingWorkQueue<>(name, clock, metrics);
  }

  /** A rate-limiting queue without metrics, retrying as {@code rateLimiter} says. */
  public static <T> RateLimitingQueue<T> newRateLimitingQueue(RateLimiter<? super T> rateLimiter) {
    return newRateLimitingQueue("", rateLimiter, SystemClock.INSTANCE, MetricsProvider.NOOP);
  }

  /**
   * A rate-limiting queue publishing its metrics under {@code name} through {@code metrics}. For a
   * controller, pass {@link RateLimiters#defaultControllerRateLimiter()} and the same clock.
   */
  public static <T> RateLimitingQueue<T> newRateLimitingQueue(
      String name, RateLimiter<? super T> rateLimiter, Clock clock, MetricsProvider metrics) {
    return new RateLimitingWorkQueue<>(new DelayingWorkQueue<>(name, clock, metrics), rateLimiter);
  }
}
