package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Producers add, update and delete pods while consumers pop them and reject some (several times),
 * an event thread moves rejected pods back and flushes backoffQ (with SchedulerPopFromBackoffQ,
 * consumers also take pods straight out of backoffQ). Pods are finished, updated and
 * deleted under a per-pod monitor, as the informer serializes one object's events and a binding
 * turns a pending pod into an assigned one.
 */
class SchedulingQueueConcurrencyTest {
  private static final int PODS = 1_000;
  private static final int PRODUCERS = 4;
  private static final int CONSUMERS = 3;

  @ParameterizedTest(name = "SchedulerPopFromBackoffQ={0}")
  @ValueSource(booleans = {false, true})
  void producersAndConsumersNeitherLoseNorDuplicatePods(boolean popFromBackoffQ) throws Exception {
    QueueFixture f = new QueueFixture();
    f.popFromBackoffQ = popFromBackoffQ;
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();

    Pod[] pods = new Pod[PODS];
    Object[] monitors = new Object[PODS];
    boolean[] finished = new boolean[PODS]; // guarded by monitors[i]
    boolean[] deleted = new boolean[PODS]; // guarded by monitors[i]
    for (int i = 0; i < PODS; i++) {
      pods[i] = TestPods.withPriority("p" + i, i % 7);
      monitors[i] = new Object();
    }
    AtomicIntegerArray scheduled = new AtomicIntegerArray(PODS);
    Set<String> held = ConcurrentHashMap.newKeySet();
    List<String> violations = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS + 1);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> tasks = new ArrayList<>();

    for (int w = 0; w < PRODUCERS; w++) {
      int first = w;
      tasks.add(pool.submit(() -> {
        start.await();
        for (int i = first; i < PODS; i += PRODUCERS) {
          queue.add(pods[i]);
        }
        for (int i = first; i < PODS; i += PRODUCERS) {
          synchronized (monitors[i]) {
            if (!finished[i]) {
              Pod newer = TestPods.relabeled(pods[i], "rev", "2");
              queue.update(pods[i], newer);
              pods[i] = newer;
            }
          }
        }
        for (int i = first; i < PODS; i += 5 * PRODUCERS) {
          synchronized (monitors[i]) {
            deleted[i] = true;
            queue.delete(pods[i]);
          }
        }
        return null;
      }));
    }
    for (int c = 0; c < CONSUMERS; c++) {
      tasks.add(pool.submit(() -> {
        start.await();
        while (true) {
          Optional<QueuedPodInfo> next = queue.pop();
          if (next.isEmpty()) {
            return null;
          }
          QueuedPodInfo p = next.get();
          String name = p.pod().getMetadata().getName();
          int i = Integer.parseInt(name.substring(1));
          if (!held.add(name)) {
            violations.add(name + " popped while another consumer held it");
          }
          boolean reject = i % 3 == 0 && p.attempts() < 3;
          if (reject) {
            held.remove(name);
            p.unschedulablePlugins().add("Fit");
            if (i % 2 == 0) {
              queue.addNominatedPod(p.podInfo(), NominatingInfo.override("n" + (i % 4)));
            }
            queue.addUnschedulableIfNotPresent(p, queue.schedulingCycle());
          } else {
            synchronized (monitors[i]) {
              finished[i] = true;
              if (scheduled.incrementAndGet(i) > 1) {
                violations.add(name + " scheduled twice");
              }
              held.remove(name);
              queue.deleteNominatedPodIfExists(p.pod());
              queue.done(p.pod().getMetadata().getUid());
            }
          }
        }
      }));
    }
    tasks.add(pool.submit(() -> {
      start.await();
      while (!stop.get()) {
        queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
        f.clock.advance(Duration.ofSeconds(5));
        queue.flushBackoffQCompleted();
        queue.nominatedPodsForNode("n0");
        LockSupport.parkNanos(50_000);
      }
      return null;
    }));

    start.countDown();
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
      for (int i = 0; i < PODS; i++) {
        synchronized (monitors[i]) {
          if (!finished[i] && !deleted[i]) {
            return false;
          }
        }
      }
      return queue.pendingPods().isEmpty() && queue.inFlightSize() == 0;
    });
    stop.set(true);
    queue.close();
    for (Future<?> t : tasks) {
      t.get(10, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(violations).isEmpty();
    for (int i = 0; i < PODS; i++) {
      synchronized (monitors[i]) {
        if (deleted[i]) {
          assertThat(scheduled.get(i)).as("deleted pod p%d", i).isLessThanOrEqualTo(1);
        } else {
          assertThat(scheduled.get(i)).as("pod p%d", i).isEqualTo(1);
        }
      }
    }
    assertThat(queue.inFlightEventCount()).isZero();
    for (int n = 0; n < 4; n++) {
      for (PodInfo nominated : queue.nominatedPodsForNode("n" + n)) {
        int i = Integer.parseInt(nominated.name().substring(1));
        synchronized (monitors[i]) {
          assertThat(deleted[i] || finished[i]).as("nominated %s", nominated.name()).isFalse();
        }
      }
    }
  }

  @Test
  void nominatorReadersAlwaysSeeWholeLists() throws Exception {
    QueueFixture f = new QueueFixture();
    SchedulingQueue queue = f.build();
    int writers = 3;
    int perWriter = 300;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    AtomicBoolean stop = new AtomicBoolean();
    List<String> violations = new CopyOnWriteArrayList<>();
    List<Future<?>> tasks = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      tasks.add(pool.submit(() -> {
        for (int k = 0; k < perWriter; k++) {
          PodInfo p = PodInfo.of(TestPods.named("w" + writer + "-" + k));
          queue.addNominatedPod(p, NominatingInfo.override("n" + (k % 3)));
          queue.addNominatedPod(p, NominatingInfo.override("n" + ((k + 1) % 3)));
          if (k % 2 == 0) {
            queue.deleteNominatedPodIfExists(p.pod());
          }
        }
        return null;
      }));
    }
    for (int r = 0; r < 1; r++) {
      tasks.add(pool.submit(() -> {
        while (!stop.get()) {
          for (int n = 0; n < 3; n++) {
            // Each list is one consistent snapshot: no holes, no pod twice.
            Set<String> seen = new java.util.HashSet<>();
            for (PodInfo p : queue.nominatedPodsForNode("n" + n)) {
              if (p == null) {
                violations.add("null entry");
              } else if (!seen.add(p.name())) {
                violations.add("duplicate " + p.name() + " on n" + n);
              }
            }
          }
        }
        return null;
      }));
    }
    for (int w = 0; w < writers; w++) {
      tasks.get(w).get(30, TimeUnit.SECONDS);
    }
    stop.set(true);
    for (Future<?> t : tasks) {
      t.get(10, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(violations).isEmpty();
    int total = 0;
    for (int n = 0; n < 3; n++) {
      List<PodInfo> onNode = queue.nominatedPodsForNode("n" + n);
      total += onNode.size();
      for (PodInfo p : onNode) {
        int k = Integer.parseInt(p.name().substring(p.name().indexOf('-') + 1));
        assertThat(k % 2).as(p.name()).isEqualTo(1);
        assertThat(onNode.stream().filter(x -> x.name().equals(p.name()))).hasSize(1);
        assertThat("n" + n).isEqualTo("n" + ((k + 1) % 3));
      }
    }
    assertThat(total).isEqualTo(writers * perWriter / 2);
  }
}
