package io.berth.bench.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * One run of the delayed-add scenario on a fresh queue: {@code producers} threads call {@code
 * addAfter} for distinct items with random delays in [0, maxDelay), workers get and done whatever
 * comes out, and the run ends when every item has come out or when {@code maxDelay + grace} has
 * passed since the last {@code addAfter} (nothing can legitimately come later). Used once, from one
 * benchmark thread.
 */
final class DelayedAddRun implements AutoCloseable {

  /** What one run measured. */
  record Result(int items, int delivered, long addNanos, long deliverNanos) {

    double deliveredPercent() {
      return 100.0 * delivered / items;
    }

    double addAfterPerSecond() {
      return items / (addNanos / 1e9);
    }
  }

  private final BenchQueue queue;
  private final int items;
  private final int producers;
  private final long maxDelayNanos;
  private final long graceNanos;
  private final Integer[] boxed;
  /** How often each item came out; written by workers. */
  private final AtomicIntegerArray seen;
  /** Distinct items delivered so far. */
  private final AtomicInteger delivered = new AtomicInteger();
  private final CountDownLatch allDelivered = new CountDownLatch(1);
  /** System.nanoTime() of the latest first delivery; written by workers. */
  private volatile long lastDelivery;
  private final List<Thread> workers = new ArrayList<>();

  DelayedAddRun(
      BenchQueue queue, int items, int producers, int workers, Duration maxDelay, Duration grace) {
    this.queue = queue;
    this.items = items;
    this.producers = producers;
    this.maxDelayNanos = maxDelay.toNanos();
    this.graceNanos = grace.toNanos();
    this.boxed = new Integer[items];
    for (int i = 0; i < items; i++) {
      boxed[i] = i;
    }
    this.seen = new AtomicIntegerArray(items);
    for (int w = 0; w < workers; w++) {
      Thread t = new Thread(this::work, "worker-" + w);
      t.setDaemon(true);
      t.start();
      this.workers.add(t);
    }
  }

  /** Adds every item from the producer threads and waits for delivery; returns the figures. */
  Result execute() throws InterruptedException {
    int slice = items / producers;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> producerThreads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int from = p * slice;
      int to = p == producers - 1 ? items : from + slice;
      SplittableRandom random = new SplittableRandom(42 + p);
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                for (int i = from; i < to; i++) {
                  queue.addAfter(boxed[i], Duration.ofNanos(random.nextLong(maxDelayNanos)));
                }
              },
              "producer-" + p);
      t.setDaemon(true);
      t.start();
      producerThreads.add(t);
    }
    long t0 = System.nanoTime();
    start.countDown();
    for (Thread t : producerThreads) {
      t.join();
    }
    long addsDone = System.nanoTime();
    long deadline = addsDone + maxDelayNanos + graceNanos;
    allDelivered.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    int count = delivered.get();
    long end = count == 0 ? System.nanoTime() : lastDelivery;
    return new Result(items, count, addsDone - t0, end - t0);
  }

  private void work() {
    try {
      for (Integer item = queue.get(); item != null; item = queue.get()) {
        if (seen.getAndIncrement(item) == 0) {
          lastDelivery = System.nanoTime();
          if (delivered.incrementAndGet() == items) {
            allDelivered.countDown();
          }
        }
        queue.done(item);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() throws InterruptedException {
    queue.shutDown();
    for (Thread t : workers) {
      t.join(5_000);
    }
  }
}
