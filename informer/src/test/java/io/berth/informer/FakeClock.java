package io.berth.informer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A manual {@link Clock} for tests: time moves only when {@link #advance} is called; sleepers wait
 * until it passes their deadline. Records every requested sleep so tests can check backoff
 * sequences. Thread-safe: all state guarded by {@code lock}.
 */
final class FakeClock implements Clock {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition advanced = lock.newCondition();
  // guarded by lock
  private long now = 1_000_000_000L;
  // guarded by lock
  private int sleepers;
  // guarded by lock
  private final List<Duration> sleeps = new ArrayList<>();

  @Override
  public long nanoTime() {
    lock.lock();
    try {
      return now;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void sleep(Duration duration) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      sleeps.add(duration);
      long deadline = now + duration.toNanos();
      sleepers++;
      try {
        while (now - deadline < 0) {
          advanced.await();
        }
      } finally {
        sleepers--;
      }
    } finally {
      lock.unlock();
    }
  }

  void advance(Duration duration) {
    lock.lock();
    try {
      now += duration.toNanos();
      advanced.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Number of threads currently sleeping on this clock. */
  int sleepers() {
    lock.lock();
    try {
      return sleepers;
    } finally {
      lock.unlock();
    }
  }

  /** Every sleep requested so far, in order. */
  List<Duration> sleeps() {
    lock.lock();
    try {
      return new ArrayList<>(sleeps);
    } finally {
      lock.unlock();
    }
  }
}
