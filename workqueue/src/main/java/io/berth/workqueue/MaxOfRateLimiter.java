package io.berth.workqueue;

import java.time.Duration;
import java.util.List;

/**
 * Asks every limiter and takes the worst answer: the longest delay and the highest requeue count;
 * {@link #forget} forgets in all of them. With a token bucket among them the burst can appear
 * exceeded when some items were separately delayed longer (as upstream notes). Thread-safe if its
 * limiters are; the list is immutable after construction.
 */
public final class MaxOfRateLimiter<T> implements RateLimiter<T> {

  private final List<RateLimiter<? super T>> limiters;

  /** The worst of {@code limiters}, asked in order. */
  @SafeVarargs
  public MaxOfRateLimiter(RateLimiter<? super T>... limiters) {
    this.limiters = List.of(limiters);
  }

  @Override
  public Duration when(T item) {
    Duration worst = Duration.ZERO;
    for (RateLimiter<? super T> limiter : limiters) {
      Duration d = limiter.when(item);
      if (d.compareTo(worst) > 0) {
        worst = d;
      }
    }
    return worst;
  }

  @Override
  public void forget(T item) {
    for (RateLimiter<? super T> limiter : limiters) {
      limiter.forget(item);
    }
  }

  @Override
  public int numRequeues(T item) {
    int worst = 0;
    for (RateLimiter<? super T> limiter : limiters) {
      worst = Math.max(worst, limiter.numRequeues(item));
    }
    return worst;
  }
}
