package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
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
