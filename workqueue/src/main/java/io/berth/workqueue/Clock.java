package io.berth.workqueue;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * Monotonic time for queues, rate limiters and anything else that waits or measures durations.
 *
 * <p>Production code uses {@link SystemClock#INSTANCE}; tests inject a {@link FakeClock} and push
 * time forward instead of sleeping. Implementations must be thread-safe. Values returned by
 * {@link #nanoTime()} only mean something relative to each other (like {@link System#nanoTime()}),
 * so compare them by subtraction ({@code a - b < 0}), never with {@code <} directly.
 */
public interface Clock {

  /** The current monotonic time in nanoseconds. Never decreases. */
  long nanoTime();

  /**
   * Makes the calling thread, which must hold {@code lock}, wait on {@code condition} until it is
   * signalled, interrupted, or this clock reaches {@code deadlineNanos}, whichever comes first.
   * Like {@link Condition#await()} it may return early for no reason, so callers wait in a loop
   * that re-checks their state and the time. Returns at once if the deadline has already passed.
   *
   * @param lock the lock that owns {@code condition}, held by the caller
   * @param condition the condition to wait on
   * @param deadlineNanos the {@link #nanoTime()} value at which to wake up
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException;
}
