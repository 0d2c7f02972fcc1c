package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DelayingQueueTest {

  private final FakeClock clock = new FakeClock();
  private final DelayingQueue<String> queue =
      WorkQueues.newDelayingQueue("", clock, MetricsProvider.NOOP);

  @Test
  void addAfterAddsOnceTheDelayHasPassed() {
    queue.addAfter("a", Duration.ofSeconds(1));
    assertThat(queue.len()).isZero();

    clock.advance(Duration.ofMillis(999));
    assertThat(queue.len()).isZero();

    clock.advance(Duration.ofMillis(1));
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void addAfterKeepsEarlierReadyTime() throws Exception {
    queue.addAfter("a", Duration.ofSeconds(5));
    queue.addAfter("a", Duration.ofSeconds(1));

    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
    assertThat(queue.get()).contains("a");
    queue.done("a");

    clock.advance(Duration.ofSeconds(10));
    assertThat(queue.len()).as("one entry per item: the later time was not kept").isZero();
  }

  @Test
  void laterAddAfterDoesNotPostponeAWaitingItem() {
    queue.addAfter("a", Duration.ofSeconds(1));
    queue.addAfter("a", Duration.ofSeconds(5));

    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void nonPositiveDelayAddsNow() {
    queue.addAfter("a", Duration.ZERO);
    queue.addAfter("b", Duration.ofSeconds(-1));

    assertThat(queue.len()).isEqualTo(2);
  }

  @Test
  void readyItemsComeOutInReadyTimeOrder() throws Exception {
    queue.addAfter("c", Duration.ofSeconds(3));
    queue.addAfter("a", Duration.ofSeconds(1));
    queue.addAfter("b", Duration.ofSeconds(2));

    clock.advance(Duration.ofSeconds(3));

    assertThat(queue.get()).contains("a");
    assertThat(queue.get()).contains("b");
    assertThat(queue.get()).contains("c");
  }

  @Test
  void manyDelayedItemsComeOutSortedByReadyTime() throws Exception {
    java.util.Random random = new java.util.Random(42);
    List<Integer> delays = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      int delay = 1 + random.nextInt(100_000);
      while (delays.contains(delay)) {
        delay++;
      }
      delays.add(delay);
      queue.addAfter("item-" + delay, Duration.ofMillis(delay));
    }
    clock.advance(Duration.ofSeconds(100));

    List<String> out = new ArrayList<>();
    for (int i = 0; i < delays.size(); i++) {
      out.add(queue.get().orElseThrow());
    }
    List<String> expected =
        delays.stream().sorted().map(d -> "item-" + d).collect(java.util.stream.Collectors.toList());
    assertThat(out).containsExactlyElementsOf(expected);
  }

  @Test
  void delayedAddOfAQueuedItemCollapses() {
    queue.add("a");
    queue.addAfter("a", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));

    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void delayedAddOfAnItemInWorkIsRequeuedOnDone() throws Exception {
    queue.add("a");
    queue.get();
    queue.addAfter("a", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.len()).isZero();

    queue.done("a");

    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void blockedGetWakesWhenTheDelayElapses() throws Exception {
    queue.addAfter("a", Duration.ofSeconds(1));
    Async<Optional<String>> worker = Async.start("worker", queue::get).awaitParked();
    org.awaitility.Awaitility.await().until(clock::hasWaiters);

    clock.advance(Duration.ofMillis(500));
    assertThat(worker.isDone()).isFalse();
    clock.advance(Duration.ofMillis(500));

    assertThat(worker.get()).contains("a");
  }

  @Test
  void earlierDeadlineWakesTheWaitingWorker() throws Exception {
    queue.addAfter("late", Duration.ofSeconds(10));
    Async<Optional<String>> worker = Async.start("worker", queue::get).awaitParked();

    queue.addAfter("early", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));

    assertThat(worker.get()).contains("early");
  }

  @Test
  void everyBlockedWorkerGetsADueItem() throws Exception {
    List<Async<Optional<String>>> workers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      workers.add(Async.start("worker-" + i, queue::get).awaitParked());
    }
    for (int i = 0; i < 4; i++) {
      queue.addAfter("item-" + i, Duration.ofSeconds(1 + i));
    }

    clock.advance(Duration.ofSeconds(4));

    List<String> got = new ArrayList<>();
    for (Async<Optional<String>> w : workers) {
      got.add(w.get().orElseThrow());
    }
    assertThat(got).containsExactlyInAnyOrder("item-0", "item-1", "item-2", "item-3");
  }

  @Test
  void shutDownDropsWaitingItems() throws Exception {
    queue.addAfter("a", Duration.ofSeconds(1));
    queue.shutDown();
    clock.advance(Duration.ofSeconds(1));

    assertThat(queue.len()).isZero();
    assertThat(queue.get()).isEmpty();
  }

  @Test
  void addAfterOnAShutDownQueueIsIgnored() throws Exception {
    queue.shutDown();
    queue.addAfter("a", Duration.ZERO);
    queue.addAfter("b", Duration.ofSeconds(1));
    clock.advance(Duration.ofSeconds(1));

    assertThat(queue.get()).isEmpty();
  }

  @Test
  void shutDownWakesAWorkerTimingADelay() throws Exception {
    queue.addAfter("a", Duration.ofSeconds(1));
    Async<Optional<String>> worker = Async.start("worker", queue::get).awaitParked();

    queue.shutDown();

    assertThat(worker.get()).isEmpty();
  }

  @Test
  void hugeDelayDoesNotOverflow() {
    queue.addAfter("a", Duration.ofSeconds(Long.MAX_VALUE));
    queue.addAfter("b", Duration.ofDays(365));

    clock.advance(Duration.ofDays(366));

    assertThat(queue.len()).isEqualTo(1);
  }

  @Test
  void realClockDeliversAfterTheDelay() throws Exception {
    DelayingQueue<String> real = WorkQueues.newDelayingQueue();
    long start = System.nanoTime();
    real.addAfter("a", Duration.ofMillis(20));

    assertThat(real.get()).contains("a");
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
  }
}
