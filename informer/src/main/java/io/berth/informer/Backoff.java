package io.berth.informer;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with jitter and reset, as client-go's {@code ExponentialBackoffManager}
 * configured by the reflector: the base delay starts at {@code initial}, doubles on each use and
 * is capped at {@code cap}; each delay is the base plus up to {@code jitter} times the base
 * (uniformly random), so with the reflector's jitter 1.0 a delay lies in [base, 2 * base). If no
 * backoff was taken for {@code resetAfter}, the base starts over at {@code initial}.
 *
 * <p>Reflector defaults: 800 ms initial, 30 s cap, reset after 2 min, jitter 1.0.
 *
 * <p>Not thread-safe: confined to the thread that owns it (the reflector's run thread).
 */
final class Backoff {

  static final Duration DEFAULT_INITIAL = Duration.ofMillis(800);
  static final Duration DEFAULT_CAP = Duration.ofSeconds(30);
  static final Duration DEFAULT_RESET = Duration.ofMinutes(2);
  static final double DEFAULT_JITTER = 1.0;

  private final long initialNanos;
  private final long capNanos;
  private final long resetNanos;
  private final double jitter;
  private final Clock clock;
  private final DoubleSupplier random;

  private long baseNanos;
  private long lastBackoffStart;
  private boolean used;

  Backoff(Duration initial, Duration cap, Duration resetAfter, double jitter, Clock clock, DoubleSupplier random) {
    if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
      throw new IllegalArgumentException("need 0 < initial <= cap: " + initial + ", " + cap);
    }
    this.initialNanos = initial.toNanos();
    this.capNanos = cap.toNanos();
    this.resetNanos = resetAfter.toNanos();
    this.jitter = jitter;
    this.clock = clock;
    this.random = random;
    this.baseNanos = initialNanos;
  }

  static Backoff reflectorDefault(Clock clock, DoubleSupplier random) {
    return new Backoff(DEFAULT_INITIAL, DEFAULT_CAP, DEFAULT_RESET, DEFAULT_JITTER, clock, random);
  }

  /** The next delay to wait. */
  Duration next() {
    long now = clock.nanoTime();
    if (!used || now - lastBackoffStart > resetNanos) {
      baseNanos = initialNanos;
    }
    used = true;
    lastBackoffStart = now;
    long delay = baseNanos;
    baseNanos = Math.min(capNanos, baseNanos * 2);
    if (jitter > 0) {
      delay += (long) (random.getAsDouble() * jitter * delay);
    }
    return Duration.ofNanos(delay);
  }
}
