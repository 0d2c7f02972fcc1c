package io.berth.scheduler.explain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.scheduler.explain.Attempt.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExplainStoreTest {

  @Test
  void keepsTheLastAttemptsOfAPodInOrder() {
    ExplainStore store = new ExplainStore(3, 1_000);
    for (int i = 1; i <= 5; i++) {
      store.record(Attempts.unschedulable("p", i, 2));
    }
    assertThat(store.attempts("ns", "p")).extracting(Attempt::attempt).containsExactly(3, 4, 5);
    assertThat(store.latest("ns", "p")).get().extracting(Attempt::attempt).isEqualTo(5);
    assertThat(store.evicted()).isEqualTo(2);
    assertThat(store.entries()).isEqualTo(3 * 3);
    assertThat(store.latest("ns", "other")).isEmpty();
  }

  @Test
  void theOverallBoundEvictsTheLeastRecentlyRecordedPodsFirst() {
    // each attempt weighs 1 + 9 rejected nodes = 10 entries; 30 entries hold three attempts
    ExplainStore store = new ExplainStore(4, 30);
    store.record(Attempts.unschedulable("a", 1, 9));
    store.record(Attempts.unschedulable("b", 1, 9));
    store.record(Attempts.unschedulable("a", 2, 9));
    store.record(Attempts.unschedulable("c", 1, 9));
    // b was recorded least recently: its only attempt went first
    assertThat(store.attempts("ns", "b")).isEmpty();
    assertThat(store.pods()).containsExactly("ns/a", "ns/c");
    assertThat(store.entries()).isEqualTo(30);
    store.record(Attempts.unschedulable("d", 1, 9));
    // a's oldest attempt goes, its newer one stays
    assertThat(store.attempts("ns", "a")).extracting(Attempt::attempt).containsExactly(2);
    assertThat(store.entries()).isLessThanOrEqualTo(30);
  }

  @Test
  void anAttemptLargerThanTheBoundIsKeptAlone() {
    ExplainStore store = new ExplainStore(4, 10);
    store.record(Attempts.unschedulable("small", 1, 1));
    store.record(Attempts.unschedulable("huge", 1, 50));
    assertThat(store.pods()).containsExactly("ns/huge");
    assertThat(store.latest("ns", "huge")).isPresent();
  }

  @Test
  void aWaitingAttemptIsReplacedByItsOutcome() {
    ExplainStore store = new ExplainStore(4, 1_000);
    Attempt waiting = withOutcome(Attempts.unschedulable("g", 1, 0), Outcome.WAITING_ON_PERMIT);
    store.record(waiting);
    store.record(withOutcome(Attempts.unschedulable("g", 1, 0), Outcome.SCHEDULED));
    assertThat(store.attempts("ns", "g")).extracting(Attempt::outcome)
        .containsExactly(Outcome.SCHEDULED);
  }

  @Test
  void ringSizeZeroRecordsNothing() {
    ExplainStore store = new ExplainStore(0, 10);
    store.record(Attempts.unschedulable("p", 1, 1));
    assertThat(store.enabled()).isFalse();
    assertThat(store.pods()).isEmpty();
    assertThatThrownBy(() -> new ExplainStore(-1, 10)).hasMessageContaining("attemptsPerPod");
    assertThatThrownBy(() -> new ExplainStore(1, 0)).hasMessageContaining("maxEntries");
  }

  @Test
  void concurrentWritersAndReadersKeepTheBounds() throws Exception {
    int perPod = 3;
    long max = 500;
    ExplainStore store = new ExplainStore(perPod, max);
    int writers = 4;
    int readers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      futures.add(pool.submit(() -> {
        go.await();
        for (int i = 1; i <= 2_000; i++) {
          store.record(Attempts.unschedulable("pod-" + id + "-" + (i % 50), i, i % 7));
        }
        return null;
      }));
    }
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int r = 0; r < readers; r++) {
      futures.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < 2_000; i++) {
          if (store.entries() > max) {
            violations.add("entries " + store.entries());
          }
          for (String key : store.pods()) {
            String name = key.substring(3);
            List<Attempt> ring = store.attempts("ns", name);
            if (ring.size() > perPod) {
              violations.add(key + " holds " + ring.size());
            }
            for (int j = 1; j < ring.size(); j++) {
              if (ring.get(j).attempt() < ring.get(j - 1).attempt()) {
                violations.add(key + " out of order");
              }
            }
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(violations).isEmpty();
    long sum = 0;
    for (String key : store.pods()) {
      for (Attempt a : store.attempts("ns", key.substring(3))) {
        sum += ExplainStore.weight(a);
      }
    }
    assertThat(store.entries()).isEqualTo(sum).isLessThanOrEqualTo(max);
  }

  private static Attempt withOutcome(Attempt a, Outcome o) {
    return new Attempt(a.namespace(), a.name(), a.uid(), a.profile(), a.time(), a.attempt(), o,
        a.message(), a.preFilter(), a.filter(), a.preScore(), a.scores(), a.selectedNode(),
        a.nominatedNode(), a.postFilter(), a.preemption(), a.reserve(), a.permit(), a.preBind(),
        a.bind());
  }
}
