package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Writers move pods between nodes, add and delete them while readers query indexes: every read
 * sees a consistent snapshot and the final indexes match the final content exactly.
 */
class ThreadSafeStoreConcurrencyTest {

  private static final String BY_NODE = "byNode";
  private static final int WRITERS = 4;
  private static final int READERS = 2;
  private static final int PODS_PER_WRITER = 200;
  private static final int OPERATIONS_PER_WRITER = 5_000;
  private static final int NODES = 8;

  @Test
  void indexesStayConsistentUnderConcurrentWritesAndReads() throws Exception {
    ThreadSafeStore<Pod> store = ThreadSafeStore.withNamespaceIndex();
    store.addIndexers(Map.of(BY_NODE, p -> List.of(Pods.nodeName(p))));
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + READERS);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger inconsistentReads = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    // Each writer owns its namespace and records the final state it wrote.
    List<Map<String, Pod>> expected = new ArrayList<>();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Map<String, Pod> mine = new HashMap<>();
        expected.add(mine);
        String namespace = "ns" + w;
        writers.add(pool.submit(() -> {
          go.await();
          ThreadLocalRandom random = ThreadLocalRandom.current();
          for (int op = 0; op < OPERATIONS_PER_WRITER; op++) {
            String name = "pod-" + random.nextInt(PODS_PER_WRITER);
            String key = namespace + "/" + name;
            if (random.nextInt(10) == 0) {
              store.delete(pod(namespace, name, "0"));
              mine.remove(key);
            } else {
              Pod pod = pod(namespace, name, Integer.toString(op), "node-" + random.nextInt(NODES));
              store.update(pod);
              mine.put(key, pod);
            }
          }
          return null;
        }));
      }
      for (int r = 0; r < READERS; r++) {
        pool.submit(() -> {
          go.await();
          ThreadLocalRandom random = ThreadLocalRandom.current();
          while (writing.get()) {
            String node = "node-" + random.nextInt(NODES);
            for (Pod pod : store.byIndex(BY_NODE, node)) {
              // byIndex is one snapshot: every pod it returns is on that node
              if (!node.equals(Pods.nodeName(pod))) {
                inconsistentReads.incrementAndGet();
              }
            }
            String namespace = "ns" + random.nextInt(WRITERS);
            for (Pod pod : store.byIndex(Indexer.NAMESPACE_INDEX, namespace)) {
              if (!namespace.equals(pod.getMetadata().getNamespace())) {
                inconsistentReads.incrementAndGet();
              }
            }
            reads.incrementAndGet();
          }
          return null;
        });
      }
      go.countDown();
      for (Future<?> f : writers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      writing.set(false);
      pool.shutdown();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(reads.get()).isPositive();
    assertThat(inconsistentReads).hasValue(0);
    Map<String, Pod> all = new HashMap<>();
    expected.forEach(all::putAll);
    assertThat(new HashSet<>(store.listKeys())).isEqualTo(all.keySet());
    for (Map.Entry<String, Pod> entry : all.entrySet()) {
      assertThat(store.getByKey(entry.getKey())).containsSame(entry.getValue());
    }
    // indexes hold exactly the keys whose object produces the value, and no empty value
    Set<String> indexedKeys = new HashSet<>();
    for (String node : store.listIndexFuncValues(BY_NODE)) {
      List<String> keys = store.indexKeys(BY_NODE, node);
      assertThat(keys).as(node).isNotEmpty();
      for (String key : keys) {
        assertThat(Pods.nodeName(all.get(key))).isEqualTo(node);
        assertThat(indexedKeys.add(key)).as("key indexed under two nodes: " + key).isTrue();
      }
    }
    assertThat(indexedKeys).isEqualTo(all.keySet());
    for (String namespace : store.listIndexFuncValues(Indexer.NAMESPACE_INDEX)) {
      assertThat(store.indexKeys(Indexer.NAMESPACE_INDEX, namespace)).allMatch(k -> k.startsWith(namespace + "/"));
    }
  }
}
