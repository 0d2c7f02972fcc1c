package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Watches opened from a resourceVersion while writers keep writing see every later event exactly once and in order:
 * registration and replay happen atomically with respect to writes.
 */
class WatchHubConcurrencyTest {

  /** Collects events in memory. */
  private static final class ListSink implements WatchSink {
    final List<JsonNode> events = new CopyOnWriteArrayList<>();

    @Override
    public void send(byte[] event) {
      events.add(Json.parse(event));
    }

    @Override
    public void close() {
    }
  }

  private static ObjectNode configMap(String name) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "ConfigMap");
    o.putObject("metadata").put("name", name).put("namespace", "ns");
    return o;
  }

  @Test
  void watchesOpenedDuringWritesMissNothingAndRepeatNothing() throws Exception {
    ObjectStore store = new ObjectStore(1_000_000);
    WatchHub hub = new WatchHub(store, Duration.ofHours(1), Duration.ofHours(1));
    int writers = 4;
    int perWriter = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perWriter; i++) {
          String name = "w" + id + "-" + i;
          store.write(() -> store.put(ResourceTypes.CONFIG_MAPS, configMap(name)));
        }
        return null;
      }));
    }
    record Opened(long fromRv, ListSink sink) {
    }
    List<Opened> opened = new CopyOnWriteArrayList<>();
    futures.add(pool.submit(() -> {
      start.await();
      for (int i = 0; opened.size() < 40; i++) {
        long rv = store.resourceVersion();
        if (rv == 0) {
          // "0" means "from the current state", not "after version 0": wait for the first write.
          Thread.sleep(1);
          continue;
        }
        ListSink sink = new ListSink();
        hub.open(new WatchHub.WatchRequest(ResourceTypes.CONFIG_MAPS, "ns", o -> true, Long.toString(rv), false,
            Optional.empty(), StoredObject::json), sink);
        opened.add(new Opened(rv, sink));
        Thread.sleep(2);
      }
      return null;
    }));
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    long last = store.resourceVersion();
    for (Opened o : opened) {
      List<Long> versions = o.sink().events.stream()
          .map(e -> Long.parseLong(e.path("object").path("metadata").path("resourceVersion").asString()))
          .toList();
      assertThat(versions).as("watch from %s", o.fromRv()).isSorted().doesNotHaveDuplicates();
      assertThat(versions).as("watch from %s", o.fromRv()).hasSize((int) (last - o.fromRv()));
      if (!versions.isEmpty()) {
        assertThat(versions.get(0)).isEqualTo(o.fromRv() + 1);
      }
    }
    hub.shutdown();
  }
}
