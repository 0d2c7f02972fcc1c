package io.berth.bench.workqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Producer threads and worker threads around one {@link BenchQueue}, kept alive across rounds. A
 * round: every producer adds its own slice of distinct items, the workers {@code get} and {@code
 * done} each one, and the round ends when every item is done. Driven by one benchmark thread;
 * {@link #runRound()} must not be called concurrently.
 */
final class ThroughputHarness implements AutoCloseable {

  private final BenchQueue queue;
  private final Integer[] items;
  /** One start permit per producer per round; confined hand-off from the benchmark thread. */
  private final Semaphore[] go;
  private final List<Thread> producerThreads = new ArrayList<>();
  private final List<Thread> workerThreads = new ArrayList<>();
  /** Items of the current round not yet done; set before the producers are released. */
  private final AtomicInteger remaining = new AtomicInteger();
  /** Counted down by the worker that finishes the round's last item; written before release. */
  private volatile CountDownLatch roundDone;

  ThroughputHarness(BenchQueue queue, int producers, int workers, int itemsPerRound) {
    if (itemsPerRound % producers != 0) {
      throw new IllegalArgumentException(itemsPerRound + " items do not split over " + producers);
    }
    this.queue = queue;
    this.items = new Integer[itemsPerRound];
    for (int i = 0; i < itemsPerRound; i++) {
      items[i] = i; // boxed once, so the measured loop allocates nothing for items
    }
    this.go = new Semaphore[producers];
    int slice = itemsPerRound / producers;
    for (int p = 0; p < producers; p++) {
      Semaphore permit = new Semaphore(0);
      go[p] = permit;
      int from = p * slice;
      producerThreads.add(start("producer-" + p, () -> produce(permit, from, from + slice)));
    }
    for (int w = 0; w < workers; w++) {
      workerThreads.add(start("worker-" + w, this::work));
    }
  }

  /** Runs one round and returns once all its items are done. */
  void runRound() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    roundDone = done;
    remaining.set(items.length);
    for (Semaphore s : go) {
      s.release();
    }
    done.await();
  }

  private void produce(Semaphore start, int from, int to) {
    try {
      while (true) {
        start.acquire();
        for (int i = from; i < to; i++) {
          queue.add(items[i]);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void work() {
    try {
      for (Integer item = queue.get(); item != null; item = queue.get()) {
        queue.done(item);
        if (remaining.decrementAndGet() == 0) {
          roundDone.countDown();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Thread start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Override
  public void close() throws InterruptedException {
    queue.shutDown();
    for (Thread t : producerThreads) {
      t.interrupt();
    }
    for (Thread t : producerThreads) {
      t.join(5_000);
    }
    for (Thread t : workerThreads) {
      t.join(5_000);
    }
  }
}
