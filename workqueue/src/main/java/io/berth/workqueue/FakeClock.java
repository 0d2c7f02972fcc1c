package io.berth.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A manually driven {@link Clock} for tests: time stands still until {@link #advance(Duration)} or
 * {@link #setTime(long)} moves it, and every thread waiting in {@link #awaitUntil} whose deadline
 * has been reached is signalled before that call returns.
 *
 * <p>Thread-safe: any thread may read or move the time. A wake-up cannot be lost: a waiter
 * registers while holding its own lock and releases that lock only inside {@link
 * Condition#await()}, and the advancing thread takes the same lock before signalling, so the signal
 * always lands on a thread that is already waiting (or that has already left). The clock's own
 * monitor is a leaf lock: it is never held while a waiter's lock is taken, so advancing the clock
 * from any thread cannot deadlock with a waiter. Time never goes backwards.
 */
public final class FakeClock implements Clock {

  /** Guards {@link #waiters} and serialises writers of {@link #now}. */
  private final Object mutex = new Object();

  /** Current time; written under {@link #mutex}, read without it. */
  private volatile long now;

  /** Threads parked in {@link #awaitUntil}; guarded by {@link #mutex}. */
  private final List<Waiter> waiters = new ArrayList<>();

  /** A clock starting at time zero. */
  public FakeClock() {
    this(0L);
  }

  /** A clock starting at {@code startNanos}. */
  public FakeClock(long startNanos) {
    this.now = startNanos;
  }

  @Override
  public long nanoTime() {
    return now;
  }

  /**
   * Moves time forward by {@code duration} and wakes every waiter whose deadline is reached.
   *
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("cannot advance by a negative duration: " + duration);
    }
    List<Waiter> due;
    synchronized (mutex) {
      due = moveTo(now + duration.toNanos());
    }
    wake(due);
  }

  /**
   * Sets the time to {@code nanos} and wakes every waiter whose deadline is reached.
   *
   * @throws IllegalArgumentException if {@code nanos} is before the current time
   */
  public void setTime(long nanos) {
    List<Waiter> due;
    synchronized (mutex) {
      if (nanos - now < 0) {
        throw new IllegalArgumentException(
            "a clock never goes backwards: now " + now + ", asked for " + nanos);
      }
      due = moveTo(nanos);
    }
    wake(due);
  }

  /** Whether any thread is currently waiting in {@link #awaitUntil} for a future time. */
  public boolean hasWaiters() {
    synchronized (mutex) {
      return !waiters.isEmpty();
    }
  }

  /** How many threads are currently waiting in {@link #awaitUntil} for a future time. */
  public int waiterCount() {
    synchronized (mutex) {
      return waiters.size();
    }
  }

  @Override
  public void awaitUntil(Lock lock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    Waiter waiter;
    synchronized (mutex) {
      if (deadlineNanos - now <= 0) {
        return;
      }
      waiter = new Waiter(lock, condition, deadlineNanos);
      waiters.add(waiter);
    }
    try {
      condition.await();
    } finally {
      synchronized (mutex) {
        waiters.remove(waiter);
      }
    }
  }

  /** Sets the time and takes out the waiters now due; caller holds {@link #mutex}. */
  private List<Waiter> moveTo(long nanos) {
    now = nanos;
    List<Waiter> due = new ArrayList<>();
    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
      Waiter w = it.next();
      if (w.deadlineNanos - nanos <= 0) {
        it.remove();
        due.add(w);
      }
    }
    return due;
  }

  /** Signals each due waiter under its own lock; caller must not hold {@link #mutex}. */
  private static void wake(List<Waiter> due) {
    for (Waiter w : due) {
      w.lock.lock();
      try {
        w.condition.signalAll();
      } finally {
        w.lock.unlock();
      }
    }
  }

  @Override
  public String toString() {
    return "FakeClock[" + now + "ns]";
  }

  /** One parked thread's wake-up request; immutable, compared by identity. */
  private static final class Waiter {
    final Lock lock;
    final Condition condition;
    final long deadlineNanos;

    Waiter(Lock lock, Condition condition, long deadlineNanos) {
      this.lock = lock;
      this.condition = condition;
      this.deadlineNanos = deadlineNanos;
    }
  }
}
