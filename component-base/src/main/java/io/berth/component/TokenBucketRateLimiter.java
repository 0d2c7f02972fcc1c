package io.berth.component;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client-side rate limiter of {@code --kube-api-qps}/{@code --kube-api-burst}: client-go's
 * {@code flowcontrol.NewTokenBucketRateLimiter}, a token bucket over {@code golang.org/x/time/rate}.
 *
 * <p>The bucket holds at most {@code burst} tokens and starts full; it refills continuously at {@code qps} tokens
 * per second. {@link #acquire()} takes one token. When none is left it does not spin or poll: it <em>reserves</em>
 * the next token by letting the balance go negative, computes when that token will have been refilled
 * ({@code -balance / qps}), and sleeps that long outside the lock. Concurrent callers therefore wake one refill
 * interval apart in the order they reserved, and the long-run rate never exceeds qps however many threads wait.
 * An interrupted wait gives its token back.
 *
 * <p>Thread-safe: {@code tokens} and {@code lastNanos} are guarded by {@code this}; the counters are atomic.
 */
final class TokenBucketRateLimiter {

  /** Time source and sleeper; a fake one in tests. Implementations are thread-safe. */
  interface Ticker {
    Ticker SYSTEM = new Ticker() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public void sleep(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
      }
    };

    long nanoTime();

    void sleep(long nanos) throws InterruptedException;
  }

  private static final double NANOS_PER_SECOND = 1e9;

  private final double qps;
  private final int burst;
  private final Ticker ticker;
  // guarded by this; may go negative: -tokens is the number of reserved tokens not yet refilled
  private double tokens;
  // guarded by this; the ticker time tokens was last brought up to date
  private long lastNanos;
  private final AtomicLong acquired = new AtomicLong();
  private final AtomicLong waits = new AtomicLong();
  private final AtomicLong waitedNanos = new AtomicLong();

  TokenBucketRateLimiter(double qps, int burst, Ticker ticker) {
    if (!(qps > 0) || Double.isInfinite(qps)) {
      throw new IllegalArgumentException("qps must be positive and finite, got " + qps);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be at least 1, got " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.ticker = ticker;
    this.tokens = burst;
    this.lastNanos = ticker.nanoTime();
  }

  /**
   * Takes one token, sleeping until it is available.
   *
   * @return the nanoseconds this call waited (0 if a token was at hand)
   * @throws InterruptedException if interrupted while waiting; the token is returned to the bucket
   */
  long acquire() throws InterruptedException {
    long wait = reserve();
    acquired.incrementAndGet();
    if (wait <= 0) {
      return 0;
    }
    waits.incrementAndGet();
    waitedNanos.addAndGet(wait);
    try {
      ticker.sleep(wait);
    } catch (InterruptedException e) {
      cancelReservation();
      throw e;
    }
    return wait;
  }

  /** Reserves one token and returns how long the caller must wait for it. */
  synchronized long reserve() {
    refill();
    tokens -= 1;
    if (tokens >= 0) {
      return 0;
    }
    // Multiply first and round: the interval of whole tokens at integral rates comes out exact.
    return Math.round(-tokens * NANOS_PER_SECOND / qps);
  }

  private synchronized void cancelReservation() {
    refill();
    tokens = Math.min(burst, tokens + 1);
  }

  // Must hold this.
  private void refill() {
    long now = ticker.nanoTime();
    long elapsed = now - lastNanos;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed * qps / NANOS_PER_SECOND);
      lastNanos = now;
    }
  }

  double qps() {
    return qps;
  }

  int burst() {
    return burst;
  }

  /** Tokens taken so far. */
  long acquired() {
    return acquired.get();
  }

  /** How many {@link #acquire()} calls had to wait. */
  long waits() {
    return waits.get();
  }

  /** Total nanoseconds callers were told to wait. */
  long waitedNanos() {
    return waitedNanos.get();
  }
}
