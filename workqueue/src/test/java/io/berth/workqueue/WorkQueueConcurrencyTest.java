package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many producers and many workers on one queue. Each test checks the queue's promises on real
 * interleavings: nothing lost, no item in two workers at once, adds during work processed again.
 */
@Timeout(30)
class WorkQueueConcurrencyTest {

  private static final int PRODUCERS = 8;
  private static final int WORKERS = 8;

  /** Runs {@code body} on {@code n} threads started together; returns the threads' failures. */
  private static List<Thread> startAll(String name, int n, ThrowingIntConsumer body,
      ConcurrentLinkedQueue<Throwable> failures, CountDownLatch start) {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                  body.accept(index);
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              name + "-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    return threads;
  }

  private static void joinAll(List<Thread> threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join(20_000);
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
  }

  interface ThrowingIntConsumer {
    void accept(int value) throws Exception;
  }

  @Test
  void everyAddIsFollowedByAProcessingAndNoItemIsInTwoWorkersAtOnce() throws Exception {
    int keys = 200;
    int addsPerProducer = 20_000;
    WorkQueue<Integer> queue = WorkQueues.newQueue();
    // version[k] counts the adds of key k; a producer bumps it *before* calling add.
    AtomicLongArray version = new AtomicLongArray(keys);
    // seen[k] is the highest version read by a worker at the start of processing k.
    AtomicLongArray seen = new AtomicLongArray(keys);
    AtomicIntegerArray inWork = new AtomicIntegerArray(keys);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger processings = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            WORKERS,
            i -> {
              while (true) {
                Optional<Integer> next = queue.get();
                if (next.isEmpty()) {
                  return;
                }
                int k = next.get();
                if (inWork.incrementAndGet(k) != 1) {
                  overlaps.incrementAndGet();
                }
                seen.accumulateAndGet(k, version.get(k), Math::max);
                processings.incrementAndGet();
                if (ThreadLocalRandom.current().nextInt(8) == 0) {
                  Thread.yield(); // widen the window for adds during work
                }
                inWork.decrementAndGet(k);
                queue.done(k);
              }
            },
            failures,
            start);
    List<Thread> producers =
        startAll(
            "producer",
            PRODUCERS,
            i -> {
              ThreadLocalRandom random = ThreadLocalRandom.current();
              for (int n = 0; n < addsPerProducer; n++) {
                int k = random.nextInt(keys);
                version.incrementAndGet(k);
                queue.add(k);
              }
            },
            failures,
            start);
    start.countDown();
    joinAll(producers);
    queue.shutDown(); // workers empty the queue, then get() returns empty
    joinAll(workers);

    assertThat(failures).isEmpty();
    assertThat(overlaps.get()).as("items processed by two workers at once").isZero();
    for (int k = 0; k < keys; k++) {
      assertThat(seen.get(k))
          .as("key %d: last add (version %d) was processed", k, version.get(k))
          .isEqualTo(version.get(k));
    }
    assertThat(processings.get())
        .as("collapsing: never more processings than adds")
        .isLessThanOrEqualTo(PRODUCERS * addsPerProducer);
    assertThat(queue.len()).isZero();
  }

  @Test
  void distinctItemsAreEachProcessedExactlyOnce() throws Exception {
    int perProducer = 25_000;
    WorkQueue<Integer> queue = WorkQueues.newQueue();
    AtomicIntegerArray processed = new AtomicIntegerArray(PRODUCERS * perProducer);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            WORKERS,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                processed.incrementAndGet(next.get());
                queue.done(next.get());
              }
            },
            failures,
            start);
    List<Thread> producers =
        startAll(
            "producer",
            PRODUCERS,
            i -> {
              for (int n = 0; n < perProducer; n++) {
                queue.add(i * perProducer + n);
              }
            },
            failures,
            start);
    start.countDown();
    joinAll(producers);
    queue.shutDownWithDrain();
    joinAll(workers);

    assertThat(failures).isEmpty();
    for (int item = 0; item < processed.length(); item++) {
      assertThat(processed.get(item)).as("item %d", item).isEqualTo(1);
    }
  }

  @Test
  void itemsAddedDuringWorkAreProcessedAgain() throws Exception {
    // Workers re-add the item they hold (as a controller does when a sync must be repeated);
    // every re-add must lead to exactly one more processing of that item.
    int items = 2_000;
    int rounds = 5;
    WorkQueue<Integer> queue = WorkQueues.newQueue();
    AtomicIntegerArray processed = new AtomicIntegerArray(items);
    AtomicIntegerArray inWork = new AtomicIntegerArray(items);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger remaining = new AtomicInteger(items * rounds);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            WORKERS,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                int k = next.get();
                if (inWork.incrementAndGet(k) != 1) {
                  overlaps.incrementAndGet();
                }
                int count = processed.incrementAndGet(k);
                if (count < rounds) {
                  queue.add(k); // while in work: must come back after done
                  queue.add(k); // and only once
                }
                inWork.decrementAndGet(k);
                queue.done(k);
                if (remaining.decrementAndGet() == 0) {
                  queue.shutDown();
                }
              }
            },
            failures,
            start);
    for (int k = 0; k < items; k++) {
      queue.add(k);
    }
    start.countDown();
    joinAll(workers);

    assertThat(failures).isEmpty();
    assertThat(overlaps.get()).isZero();
    for (int k = 0; k < items; k++) {
      assertThat(processed.get(k)).as("item %d", k).isEqualTo(rounds);
    }
  }

  @Test
  void delayedAddsFromManyThreadsAreAllDelivered() throws Exception {
    int perProducer = 5_000;
    FakeClock clock = new FakeClock();
    DelayingQueue<Integer> queue = WorkQueues.newDelayingQueue("", clock, MetricsProvider.NOOP);
    AtomicIntegerArray processed = new AtomicIntegerArray(4 * perProducer);
    AtomicInteger delivered = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            4,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                processed.incrementAndGet(next.get());
                delivered.incrementAndGet();
                queue.done(next.get());
              }
            },
            failures,
            start);
    List<Thread> producers =
        startAll(
            "producer",
            4,
            i -> {
              ThreadLocalRandom random = ThreadLocalRandom.current();
              for (int n = 0; n < perProducer; n++) {
                queue.addAfter(i * perProducer + n, Duration.ofMillis(1 + random.nextInt(1000)));
              }
            },
            failures,
            start);
    start.countDown();
    joinAll(producers);
    assertThat(delivered.get()).as("nothing is due before time moves").isZero();
    for (int step = 0; step < 10; step++) {
      clock.advance(Duration.ofMillis(100)); // workers wake as deadlines pass
    }
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> delivered.get() == processed.length());
    queue.shutDown();
    joinAll(workers);

    assertThat(failures).isEmpty();
    for (int item = 0; item < processed.length(); item++) {
      assertThat(processed.get(item)).as("item %d", item).isEqualTo(1);
    }
  }

  @Test
  void delayedAddsOnTheRealClockAreAllDelivered() throws Exception {
    int perProducer = 2_500;
    DelayingQueue<Integer> queue = WorkQueues.newDelayingQueue();
    AtomicIntegerArray processed = new AtomicIntegerArray(4 * perProducer);
    AtomicInteger remaining = new AtomicInteger(processed.length());
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            4,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                processed.incrementAndGet(next.get());
                queue.done(next.get());
                if (remaining.decrementAndGet() == 0) {
                  queue.shutDown();
                }
              }
            },
            failures,
            start);
    List<Thread> producers =
        startAll(
            "producer",
            4,
            i -> {
              ThreadLocalRandom random = ThreadLocalRandom.current();
              for (int n = 0; n < perProducer; n++) {
                queue.addAfter(
                    i * perProducer + n, Duration.ofNanos(1_000L * random.nextInt(-1_000, 30_000)));
              }
            },
            failures,
            start);
    start.countDown();
    joinAll(producers);
    joinAll(workers);

    assertThat(failures).isEmpty();
    for (int item = 0; item < processed.length(); item++) {
      assertThat(processed.get(item)).as("item %d", item).isEqualTo(1);
    }
  }

  @Test
  void rateLimitedRetriesAreEachProcessedOnce() throws Exception {
    // Every item fails `failures` times (addRateLimited while in work), then succeeds and is
    // forgotten; so each must be processed exactly failures + 1 times.
    int items = 1_000;
    int failuresPerItem = 3;
    RateLimitingQueue<Integer> queue =
        WorkQueues.newRateLimitingQueue(
            new ItemExponentialFailureRateLimiter<Integer>(
                Duration.ofNanos(1_000), Duration.ofMillis(2)));
    AtomicIntegerArray processed = new AtomicIntegerArray(items);
    AtomicInteger remaining = new AtomicInteger(items);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> workers =
        startAll(
            "worker",
            WORKERS,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                int k = next.get();
                if (processed.incrementAndGet(k) <= failuresPerItem) {
                  queue.addRateLimited(k);
                } else {
                  queue.forget(k);
                  if (remaining.decrementAndGet() == 0) {
                    queue.shutDown();
                  }
                }
                queue.done(k);
              }
            },
            failures,
            start);
    for (int k = 0; k < items; k++) {
      queue.add(k);
    }
    start.countDown();
    joinAll(workers);

    assertThat(failures).isEmpty();
    for (int k = 0; k < items; k++) {
      assertThat(processed.get(k)).as("item %d", k).isEqualTo(failuresPerItem + 1);
      assertThat(queue.numRequeues(k)).isZero();
    }
  }

  @Test
  void shutDownWithDrainReturnsOnlyWhenNoItemIsInWork() throws Exception {
    WorkQueue<Integer> queue = WorkQueues.newQueue();
    AtomicInteger inWork = new AtomicInteger();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers =
        startAll(
            "worker",
            WORKERS,
            i -> {
              for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
                inWork.incrementAndGet();
                Thread.yield();
                inWork.decrementAndGet();
                queue.done(next.get());
              }
            },
            failures,
            start);
    start.countDown();
    for (int k = 0; k < 50_000; k++) {
      queue.add(k);
    }

    queue.shutDownWithDrain();

    assertThat(inWork.get()).as("items in work when the drain returned").isZero();
    joinAll(workers);
    assertThat(failures).isEmpty();
  }
}
