package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Many writers and readers on one store: versions stay strictly ordered and history agrees with the store. */
class ObjectStoreConcurrencyTest {

  private static ObjectNode configMap(String name, int value) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "ConfigMap");
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    meta.put("namespace", "ns");
    o.putObject("data").put("v", Integer.toString(value));
    return o;
  }

  @Test
  void concurrentWritersProduceOneStrictlyIncreasingEventStream() throws Exception {
    ObjectStore store = new ObjectStore(1_000_000);
    List<Long> seen = new CopyOnWriteArrayList<>();
    Map<String, String> lastValue = new ConcurrentHashMap<>();
    store.addListener(e -> {
      seen.add(e.resourceVersion());
      if (e.type() == WatchEvent.Type.DELETED) {
        lastValue.remove(e.object().key());
      } else {
        lastValue.put(e.object().key(), Json.text(e.object().tree(), "data", "v"));
      }
    });
    int threads = 8;
    int perThread = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          String name = "cm-" + id + "-" + (i % 50);
          int value = i;
          store.write(() -> store.put(ResourceTypes.CONFIG_MAPS, configMap(name, value)));
          if (i % 7 == 0) {
            store.write(() -> store.remove(ResourceTypes.CONFIG_MAPS, "ns", name));
          }
        }
        return null;
      }));
    }
    // Readers list while writers write: every list is internally consistent with its version.
    List<String> problems = new CopyOnWriteArrayList<>();
    for (int r = 0; r < 2; r++) {
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 300; i++) {
          ObjectStore.Snapshot snap = store.list(ResourceTypes.CONFIG_MAPS, "ns", o -> true);
          for (StoredObject o : snap.items()) {
            if (o.resourceVersion() > snap.resourceVersion()) {
              problems.add(o + " newer than list version " + snap.resourceVersion());
            }
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(problems).isEmpty();
    assertThat(seen).isSorted().doesNotHaveDuplicates();
    assertThat(seen.get(seen.size() - 1)).isEqualTo(store.resourceVersion());
    Map<String, String> stored = new java.util.HashMap<>();
    store.list(ResourceTypes.CONFIG_MAPS, "ns", o -> true).items()
        .forEach(o -> stored.put(o.key(), Json.text(o.tree(), "data", "v")));
    assertThat(stored).isEqualTo(lastValue);
    List<WatchEvent> history = store.read(() -> store.eventsAfter(ResourceTypes.CONFIG_MAPS, 0).orElseThrow());
    assertThat(history).extracting(WatchEvent::resourceVersion).containsExactlyElementsOf(seen);
  }
}
