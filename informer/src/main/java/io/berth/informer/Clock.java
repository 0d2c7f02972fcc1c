package io.berth.informer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The informer's source of time: a monotonic reading and a way to wait. Reflector backoff, watch
 * timeouts and resync timers go through it so that tests can drive time with a manual clock
 * instead of sleeping. Implementations must be thread-safe; {@link #sleep} must respond to
 * interruption by throwing {@link InterruptedException}, which is how informers stop their
 * threads.
 */
public interface Clock {

  /** The system clock: {@link System#nanoTime()} and {@link Thread#sleep}. */
  Clock SYSTEM = new Clock() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
      TimeUnit.NANOSECONDS.sleep(duration.toNanos());
    }

    @Override
    public String toString() {
      return "Clock.SYSTEM";
    }
  };

  /** A monotonic reading in nanoseconds; only differences between readings are meaningful. */
  long nanoTime();

  /** Blocks the calling thread until {@code duration} has elapsed on this clock. */
  void sleep(Duration duration) throws InterruptedException;
}
