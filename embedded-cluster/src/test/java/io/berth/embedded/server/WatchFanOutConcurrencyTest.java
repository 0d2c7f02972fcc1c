package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * 8 writer threads make 100,000 changes (creates, updates, deletes) while 4 watches are open: every watch sees
 * every event exactly once and in resourceVersion order, and the watches that render plain JSON receive the same
 * encoded frame for each event (encoded once for all of them).
 */
class WatchFanOutConcurrencyTest {

  private static final int WRITERS = 8;
  private static final int EVENTS = 100_000;

  /** Records each frame it receives; only the delivering (writer) thread calls it, under the store lock. */
  private static final class RecordingSink implements WatchSink {
    final List<WatchFrame> frames = new ArrayList<>(EVENTS);

    @Override
    public void send(byte[] event) {
      throw new AssertionError("events must arrive as frames");
    }

    @Override
    public void send(WatchFrame frame) {
      frames.add(frame);
    }

    @Override
    public void close() {
    }
  }

  private static ObjectNode configMap(String name, int value) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "ConfigMap");
    o.putObject("metadata").put("name", name).put("namespace", "ns");
    o.putObject("data").put("v", Integer.toString(value));
    return o;
  }

  /** The resourceVersion of the object inside an event frame, read without a JSON parser. */
  private static long resourceVersion(WatchFrame frame) {
    String s = new String(frame.bytes(), StandardCharsets.UTF_8);
    String key = "\"resourceVersion\":\"";
    int at = s.indexOf(key) + key.length();
    return Long.parseLong(s.substring(at, s.indexOf('"', at)));
  }

  @Test
  void everyWatcherSeesEveryEventOnceInOrder() throws Exception {
    ObjectStore store = new ObjectStore(1_000);
    WatchHub hub = new WatchHub(store, Duration.ofHours(1), Duration.ofHours(1));
    List<RecordingSink> sinks = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      RecordingSink sink = new RecordingSink();
      // three plain JSON watches share frames; the fourth renders on its own (as table watches do)
      java.util.function.Function<StoredObject, byte[]> render = w < 3 ? WatchHub.JSON : o -> o.json().clone();
      hub.open(new WatchHub.WatchRequest(ResourceTypes.CONFIG_MAPS, "ns", o -> true, null, false,
          Optional.empty(), render), sink);
      sinks.add(sink);
    }
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    int perWriter = EVENTS / WRITERS;
    for (int w = 0; w < WRITERS; w++) {
      int id = w;
      futures.add(pool.submit(() -> {
        start.await();
        // per object: create, update, delete; the last ones of each writer stay
        for (int i = 0; i < perWriter; i++) {
          String name = "w" + id + "-" + (i / 3);
          int step = i % 3;
          int value = i;
          store.write(() -> step == 2 ? store.remove(ResourceTypes.CONFIG_MAPS, "ns", name).orElseThrow()
              : store.put(ResourceTypes.CONFIG_MAPS, configMap(name, value)));
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(store.resourceVersion()).isEqualTo(EVENTS);
    for (int w = 0; w < sinks.size(); w++) {
      List<WatchFrame> frames = sinks.get(w).frames;
      assertThat(frames).as("watcher %d", w).hasSize(EVENTS);
      for (int i = 0; i < EVENTS; i++) {
        long rv = resourceVersion(frames.get(i));
        if (rv != i + 1) {
          throw new AssertionError("watcher " + w + ": event " + i + " has resourceVersion " + rv + ", expected "
              + (i + 1));
        }
      }
    }
    for (int i = 0; i < EVENTS; i++) {
      WatchFrame first = sinks.get(0).frames.get(i);
      assertThat(sinks.get(1).frames.get(i)).isSameAs(first);
      assertThat(sinks.get(2).frames.get(i)).isSameAs(first);
      assertThat(sinks.get(3).frames.get(i)).isNotSameAs(first);
      assertThat(sinks.get(3).frames.get(i).bytes()).isEqualTo(first.bytes());
    }
    hub.shutdown();
  }
}
