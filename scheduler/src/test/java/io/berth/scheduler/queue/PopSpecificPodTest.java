package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** {@link SchedulingQueue#popSpecificPod}: what a group scheduling cycle takes out of the queue. */
class PopSpecificPodTest {
  @Test
  void takesAPodOutOfActiveQOrBackoffQAndPutsItInFlight() {
    QueueFixture f = new QueueFixture();
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    queue.add(TestPods.named("b"));
    long cycle = queue.schedulingCycle();
    QueuedPodInfo b = queue.popSpecificPod("default", "b").orElseThrow();
    assertThat(b.attempts()).isEqualTo(1);
    assertThat(queue.schedulingCycle()).isEqualTo(cycle + 1);
    assertThat(queue.inFlightSize()).isEqualTo(1);
    assertThat(queue.activeSize()).isEqualTo(1);
    // in flight: a second pop of it gets nothing, and it comes back only through its own attempt
    assertThat(queue.popSpecificPod("default", "b")).isEmpty();
    b.unschedulablePlugins().add("Fit");
    queue.addUnschedulableIfNotPresent(b, queue.schedulingCycle());
    assertThat(queue.inFlightSize()).isZero();
    // unschedulable: not taken (only activeQ and backoffQ are)
    assertThat(queue.popSpecificPod("default", "b")).isEmpty();
    assertThat(queue.popSpecificPod("default", "missing")).isEmpty();
  }

  @Test
  void popSpecificPodsTakesTheQueuedOnesOfTheGivenPodsInOrderAsOnePopEach() {
    QueueFixture f = new QueueFixture();
    SchedulingQueue queue = f.build();
    for (String n : List.of("a", "b", "c", "d")) {
      queue.add(TestPods.named(n));
    }
    QueuedPodInfo d = queue.popSpecificPod("default", "d").orElseThrow();
    long cycle = queue.schedulingCycle();
    // d is in flight and x was never added: both are left out, the rest come in the order asked
    List<QueuedPodInfo> popped = queue.popSpecificPods(List.of(TestPods.named("c"),
        TestPods.named("d"), TestPods.named("x"), TestPods.named("a")));
    assertThat(popped).extracting(p -> p.pod().getMetadata().getName()).containsExactly("c", "a");
    assertThat(popped).allSatisfy(p -> assertThat(p.attempts()).isEqualTo(1));
    assertThat(queue.schedulingCycle()).isEqualTo(cycle + 2);
    assertThat(queue.inFlightSize()).isEqualTo(3);
    assertThat(queue.activeSize()).isEqualTo(1);
    assertThat(queue.popSpecificPods(List.of())).isEmpty();
    queue.done(d.pod().getMetadata().getUid());
  }

  @Test
  void queuesOfSaysWhereEachPodSitsAndLeavesOutThoseInNoQueue() {
    QueueFixture f = new QueueFixture();
    f.profile.withPreEnqueue(p -> p.getMetadata().getName().startsWith("g")
        ? Status.unresolvable("held").withPlugin("Gate") : Status.SUCCESS);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    queue.add(TestPods.named("b"));
    queue.add(TestPods.named("g1"));
    QueuedPodInfo b = queue.popSpecificPod("default", "b").orElseThrow();
    Map<String, QueueName> where = queue.queuesOf(List.of(TestPods.named("a"),
        TestPods.named("b"), TestPods.named("g1"), TestPods.named("x")));
    assertThat(where).containsExactlyInAnyOrderEntriesOf(Map.of("default/a", QueueName.ACTIVE,
        "default/g1", QueueName.GATED));
    b.unschedulablePlugins().add("Fit");
    queue.addUnschedulableIfNotPresent(b, queue.schedulingCycle());
    for (Pod p : List.of(TestPods.named("a"), TestPods.named("b"), TestPods.named("g1"))) {
      assertThat(queue.queuesOf(List.of(p)).get("default/" + p.getMetadata().getName()))
          .isEqualTo(queue.queueOf("default", p.getMetadata().getName()).orElseThrow());
    }
  }

  /**
   * A group cycle's way of taking pods (queuesOf, then popSpecificPods of those it found queued)
   * racing the adding thread and plain pop consumers: each pod is still handed out exactly once.
   */
  @Test
  void batchedLookupsAndPopsRacingPopHandEachPodOutExactlyOnce() throws Exception {
    int pods = 2_000;
    QueueFixture f = new QueueFixture();
    SchedulingQueue queue = f.build();
    Pod[] all = new Pod[pods];
    for (int i = 0; i < pods; i++) {
      all[i] = TestPods.named("p" + i);
    }
    AtomicIntegerArray handedOut = new AtomicIntegerArray(pods);
    AtomicInteger total = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> tasks = new ArrayList<>();
    tasks.add(pool.submit(() -> {
      start.await();
      for (Pod p : all) {
        queue.add(p);
      }
      return null;
    }));
    for (int c = 0; c < 2; c++) {
      tasks.add(pool.submit(() -> {
        start.await();
        java.util.SplittableRandom random = new java.util.SplittableRandom();
        while (total.get() < pods) {
          List<Pod> group = new ArrayList<>();
          int from = random.nextInt(pods);
          for (int i = from; i < Math.min(pods, from + 16); i++) {
            group.add(all[i]);
          }
          Map<String, QueueName> where = queue.queuesOf(group);
          List<Pod> queued = new ArrayList<>();
          for (Pod p : group) {
            if (where.get("default/" + p.getMetadata().getName()) == QueueName.ACTIVE) {
              queued.add(p);
            }
          }
          for (QueuedPodInfo x : queue.popSpecificPods(queued)) {
            take(queue, x, handedOut, total);
          }
        }
        return null;
      }));
    }
    tasks.add(pool.submit(() -> {
      start.await();
      while (total.get() < pods) {
        if (queue.activeSize() > 0) {
          queue.pop().ifPresent(x -> take(queue, x, handedOut, total));
        } else {
          Thread.onSpinWait();
        }
      }
      return null;
    }));
    start.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (total.get() < pods && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    queue.close();
    for (Future<?> t : tasks) {
      t.get(10, TimeUnit.SECONDS);
    }
    pool.shutdownNow();
    assertThat(total.get()).isEqualTo(pods);
    for (int i = 0; i < pods; i++) {
      assertThat(handedOut.get(i)).as("p%d handed out", i).isEqualTo(1);
    }
    assertThat(queue.inFlightSize()).isZero();
  }

  @Test
  void concurrentPopAndPopSpecificHandEachPodOutExactlyOnce() throws Exception {
    int pods = 2_000;
    QueueFixture f = new QueueFixture();
    SchedulingQueue queue = f.build();
    Pod[] all = new Pod[pods];
    for (int i = 0; i < pods; i++) {
      all[i] = TestPods.named("p" + i);
    }
    AtomicIntegerArray handedOut = new AtomicIntegerArray(pods);
    AtomicInteger total = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(5);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> tasks = new ArrayList<>();
    tasks.add(pool.submit(() -> {
      start.await();
      for (Pod p : all) {
        queue.add(p);
      }
      return null;
    }));
    for (int c = 0; c < 2; c++) {
      tasks.add(pool.submit(() -> {
        start.await();
        while (total.get() < pods) {
          Optional<QueuedPodInfo> p = queue.popSpecificPod("default",
              "p" + (int) (Math.random() * pods));
          p.ifPresent(x -> take(queue, x, handedOut, total));
        }
        return null;
      }));
    }
    for (int c = 0; c < 2; c++) {
      tasks.add(pool.submit(() -> {
        start.await();
        while (total.get() < pods) {
          if (queue.activeSize() > 0) {
            // pop blocks on an empty activeQ: only pop when something is (probably) there
            queue.pop().ifPresent(x -> take(queue, x, handedOut, total));
          } else {
            Thread.onSpinWait();
          }
        }
        return null;
      }));
    }
    start.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (total.get() < pods && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    queue.close(); // wakes a consumer blocked in pop
    for (Future<?> t : tasks) {
      t.get(10, TimeUnit.SECONDS);
    }
    pool.shutdownNow();
    assertThat(total.get()).isEqualTo(pods);
    for (int i = 0; i < pods; i++) {
      assertThat(handedOut.get(i)).as("p%d handed out", i).isEqualTo(1);
    }
    assertThat(queue.inFlightSize()).isZero();
  }

  private static void take(SchedulingQueue queue, QueuedPodInfo p, AtomicIntegerArray handedOut,
      AtomicInteger total) {
    int i = Integer.parseInt(p.pod().getMetadata().getName().substring(1));
    handedOut.incrementAndGet(i);
    total.incrementAndGet();
    queue.done(p.pod().getMetadata().getUid());
  }
}
