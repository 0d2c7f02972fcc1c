package io.berth.component;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A manual {@link TokenBucketRateLimiter.Ticker}: time moves only when the test advances it or, if
 * {@code sleepAdvances}, when a caller sleeps (so a single thread sees exactly the waits the bucket asked for).
 * Records every sleep. Thread-safe: the time is atomic, the sleep list concurrent.
 */
final class FakeTicker implements TokenBucketRateLimiter.Ticker {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final boolean sleepAdvances;
  private final List<Long> sleeps = new CopyOnWriteArrayList<>();

  FakeTicker(boolean sleepAdvances) {
    this.sleepAdvances = sleepAdvances;
  }

  @Override
  public long nanoTime() {
    return now.get();
  }

  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    sleeps.add(nanos);
    if (sleepAdvances) {
      now.addAndGet(nanos);
    }
  }

  void advance(long nanos) {
    now.addAndGet(nanos);
  }

  List<Long> sleeps() {
    return List.copyOf(sleeps);
  }
}
