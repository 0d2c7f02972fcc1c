package io.berth.controller;

import io.berth.workqueue.Clock;
import io.berth.workqueue.SystemClock;
import java.time.Instant;
import java.util.Objects;

/**
 * Wall-clock time derived from the controller's monotonic {@link Clock}, for comparisons with API timestamps
 * (a pod's Ready lastTransitionTime against {@code minReadySeconds}, the age buckets of the scale-down ranking, a
 * condition's lastTransitionTime). With {@link SystemClock} it is the system's wall clock; with any other clock (a
 * {@code FakeClock} in tests) it is the wall time at construction plus however far that clock has moved since, so
 * tests move availability forward by advancing the fake clock. Immutable and thread-safe.
 */
public final class WallClock {

  private final Clock clock;
  private final Instant anchorWall;
  private final long anchorNanos;
  private final boolean system;

  private WallClock(Clock clock, Instant anchorWall, boolean system) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.anchorWall = Objects.requireNonNull(anchorWall, "anchorWall");
    this.anchorNanos = clock.nanoTime();
    this.system = system;
  }

  /** Wall time for {@code clock}: the system clock for {@link SystemClock}, otherwise anchored at now. */
  public static WallClock of(Clock clock) {
    return new WallClock(clock, Instant.now(), clock instanceof SystemClock);
  }

  /** Wall time that reads {@code wallNow} at this moment and then moves with {@code clock}. */
  public static WallClock anchored(Clock clock, Instant wallNow) {
    return new WallClock(clock, wallNow, false);
  }

  /** The current wall time. */
  public Instant now() {
    if (system) {
      return Instant.now();
    }
    return anchorWall.plusNanos(clock.nanoTime() - anchorNanos);
  }
}
