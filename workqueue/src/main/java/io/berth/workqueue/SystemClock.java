package io.berth.workqueue;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The real clock: {@link System#nanoTime()} and timed {@link Condition#awaitNanos(long)} waits.
 * Stateless and thread-safe; use the {@link #INSTANCE} singleton.
 */
public final class SystemClock implements Clock {

  /** The one instance. */
  public static final SystemClock INSTANCE = new SystemClock();

  private SystemClock() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void awaitUntil(Lock lock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining > 0) {
      condition.awaitNanos(remaining);
    }
  }

  @Override
  public String toString() {
    return "SystemClock";
  }
}
