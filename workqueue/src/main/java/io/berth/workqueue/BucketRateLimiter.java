package io.berth.workqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * An overall (not per-item) token bucket, the arithmetic of Go's {@code golang.org/x/time/rate}
 * {@code Limiter.Reserve().Delay()} as client-go's {@code BucketRateLimiter} uses it. The bucket
 * holds up to {@code burst} tokens and refills at {@code qps} tokens per second; it starts full.
 * Every {@link #when} takes one token, going into debt if none is left, and returns how long the
 * caller must wait for its token: zero while tokens remain, then {@code 1/qps}, {@code 2/qps}, ...
 * for a burst of callers. {@link #forget} and {@link #numRequeues} do nothing here, as upstream.
 *
 * <p>Thread-safe: {@code tokens} and {@code last} are guarded by {@code this}.
 */
public final class BucketRateLimiter<T> implements RateLimiter<T> {

  private final double qps;
  private final int burst;
  private final Clock clock;

  /** Guarded by {@code this}: tokens in the bucket at {@code last}; negative when in debt. */
  private double tokens;
  /** Guarded by {@code this}: the clock time {@code tokens} was computed for. */
  private long last;

  /**
   * @param qps tokens added per second; {@link Double#POSITIVE_INFINITY} never delays
   * @param burst the bucket's size, at least 1
   * @param clock the time source
   */
  public BucketRateLimiter(double qps, int burst, Clock clock) {
    if (!(qps > 0)) {
      throw new IllegalArgumentException("qps must be positive: " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1: " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.tokens = burst;
    this.last = clock.nanoTime();
  }

  @Override
  public Duration when(T item) {
    if (Double.isInfinite(qps)) {
      return Duration.ZERO;
    }
    synchronized (this) {
      long now = clock.nanoTime();
      if (now - last < 0) {
        now = last; // time seen out of order by racing callers: as upstream, act at `last`
      }
      // Refill for the time since `last`, never beyond the bucket's size. The elapsed time is
      // capped first so that a long idle period cannot overflow the token arithmetic.
      long elapsed = Math.min(now - last, nanosFromTokens(burst - tokens));
      tokens = Math.min(burst, tokens + tokensFromNanos(elapsed));
      last = now;
      tokens -= 1;
      return tokens < 0 ? Duration.ofNanos(nanosFromTokens(-tokens)) : Duration.ZERO;
    }
  }

  @Override
  public void forget(T item) {}

  @Override
  public int numRequeues(T item) {
    return 0;
  }

  /** The time it takes to accumulate {@code n} tokens (Go: {@code durationFromTokens}). */
  private long nanosFromTokens(double n) {
    double nanos = n / qps * 1e9;
    return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) nanos;
  }

  /** The tokens accumulated in {@code nanos} (Go: {@code tokensFromDuration}). */
  private double tokensFromNanos(long nanos) {
    return nanos / 1e9 * qps;
  }
}
