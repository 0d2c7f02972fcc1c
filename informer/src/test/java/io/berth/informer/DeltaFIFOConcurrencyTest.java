package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Many producers and many consumers on one DeltaFIFO: no delta is lost or duplicated. */
class DeltaFIFOConcurrencyTest {

  private static final int PRODUCERS = 6;
  private static final int CONSUMERS = 4;
  private static final int KEYS_PER_PRODUCER = 300;
  private static final int UPDATES_PER_KEY = 10;

  @Test
  void manyProducersAndConsumersLoseNoDelta() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    // key -> resourceVersions seen by consumers
    Map<String, Set<String>> seen = new ConcurrentHashMap<>();
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger popped = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> producers = new ArrayList<>();
      for (int p = 0; p < PRODUCERS; p++) {
        int producer = p;
        producers.add(pool.submit(() -> {
          go.await();
          // Each producer owns its keys and interleaves them so keys are re-queued after pops.
          for (int version = 0; version <= UPDATES_PER_KEY; version++) {
            for (int k = 0; k < KEYS_PER_PRODUCER; k++) {
              Pod pod = pod("ns" + producer, "pod-" + k, Integer.toString(version));
              if (version == 0) {
                fifo.add(pod);
              } else {
                fifo.update(pod);
              }
            }
          }
          return null;
        }));
      }
      List<Future<?>> consumers = new ArrayList<>();
      for (int c = 0; c < CONSUMERS; c++) {
        consumers.add(pool.submit(() -> {
          go.await();
          while (fifo.pop((deltas, initial) -> {
            Set<String> versions = seen.computeIfAbsent(deltas.key(), k -> ConcurrentHashMap.newKeySet());
            for (Delta<Pod> delta : deltas.deltas()) {
              if (!versions.add(delta.object().getMetadata().getResourceVersion())) {
                duplicates.incrementAndGet();
              }
            }
            popped.incrementAndGet();
          }).isPresent()) {
            // keep popping until closed and drained
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : producers) {
        f.get(60, TimeUnit.SECONDS);
      }
      fifo.close();
      for (Future<?> f : consumers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(duplicates).hasValue(0);
    assertThat(seen).hasSize(PRODUCERS * KEYS_PER_PRODUCER);
    for (Map.Entry<String, Set<String>> entry : seen.entrySet()) {
      assertThat(entry.getValue()).as(entry.getKey()).hasSize(UPDATES_PER_KEY + 1);
    }
    assertThat(fifo.size()).isZero();
    assertThat(popped.get()).isGreaterThanOrEqualTo(PRODUCERS * KEYS_PER_PRODUCER);
  }

  @Test
  void concurrentDeletesAndReplacesLeaveEveryKeyWithAFinalDeletion() throws Exception {
    ThreadSafeStore<Pod> known = ThreadSafeStore.withNamespaceIndex();
    int keys = 500;
    for (int k = 0; k < keys; k++) {
      known.add(pod("ns", "pod-" + k, "1"));
    }
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch go = new CountDownLatch(1);
      Future<?> deleter = pool.submit(() -> {
        go.await();
        for (int k = 0; k < keys; k++) {
          fifo.delete(pod("ns", "pod-" + k, "2"));
        }
        return null;
      });
      Future<?> relister = pool.submit(() -> {
        go.await();
        for (int i = 0; i < 20; i++) {
          fifo.replace(List.of(), Integer.toString(10 + i));
        }
        return null;
      });
      go.countDown();
      deleter.get(60, TimeUnit.SECONDS);
      relister.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    // Every key ends with exactly one deletion: a known-state delete or a tombstone, never both.
    int count = 0;
    while (fifo.size() > 0) {
      Deltas<Pod> deltas = fifo.pop((d, i) -> {}).orElseThrow();
      assertThat(deltas.deltas()).as(deltas.key()).hasSize(1);
      assertThat(deltas.newest().type()).isEqualTo(DeltaType.DELETED);
      count++;
    }
    assertThat(count).isEqualTo(keys);
  }
}
