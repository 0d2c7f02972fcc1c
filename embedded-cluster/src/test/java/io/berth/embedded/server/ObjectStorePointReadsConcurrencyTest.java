package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Point reads ({@link ObjectStore#get}, served by the hash index) against lists (the ordered map) while 8 writers
 * put and remove: a lock-free reader never sees a version older than one it saw before or one the store never
 * held, and once the writers stop, every key answers exactly what a list answers.
 */
class ObjectStorePointReadsConcurrencyTest {

  private static ObjectNode configMap(String ns, String name, int value) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "ConfigMap");
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    meta.put("namespace", ns);
    o.putObject("data").put("v", Integer.toString(value));
    return o;
  }

  @Test
  void pointReadsAgreeWithListsUnderConcurrentPutsAndRemoves() throws Exception {
    ObjectStore store = new ObjectStore(1_000);
    int writers = 8;
    int perWriter = 3_000;
    int keys = 40;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 4);
    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<String> problems = new CopyOnWriteArrayList<>();
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perWriter; i++) {
          String ns = "ns-" + (i % 3);
          String name = "cm-" + id + "-" + (i % keys);
          int value = i;
          store.write(() -> store.put(ResourceTypes.CONFIG_MAPS, configMap(ns, name, value)));
          if (i % 5 == 0) {
            store.write(() -> store.remove(ResourceTypes.CONFIG_MAPS, ns, name));
          }
        }
        return null;
      }));
    }
    // Each reader follows a few keys: the versions it sees of one key never go back.
    for (int r = 0; r < 4; r++) {
      int id = r;
      futures.add(pool.submit(() -> {
        start.await();
        long[] lastSeen = new long[keys * 3];
        while (writing.get()) {
          for (int k = 0; k < keys; k++) {
            for (int n = 0; n < 3; n++) {
              Optional<StoredObject> o = store.get(ResourceTypes.CONFIG_MAPS, "ns-" + n, "cm-" + id + "-" + k);
              if (o.isEmpty()) {
                continue;
              }
              StoredObject seen = o.get();
              if (!seen.name().equals("cm-" + id + "-" + k) || !seen.namespace().equals("ns-" + n)) {
                problems.add("asked for ns-" + n + "/cm-" + id + "-" + k + ", got " + seen);
              }
              int slot = k * 3 + n;
              if (seen.resourceVersion() < lastSeen[slot]) {
                problems.add(seen + " after version " + lastSeen[slot]);
              }
              lastSeen[slot] = seen.resourceVersion();
            }
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (int i = 0; i < writers; i++) {
      futures.get(i).get(2, TimeUnit.MINUTES);
    }
    writing.set(false);
    for (Future<?> f : futures) {
      f.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();
    assertThat(problems).isEmpty();

    List<StoredObject> listed = store.list(ResourceTypes.CONFIG_MAPS, "", o -> true).items();
    assertThat(listed).isNotEmpty();
    assertThat(store.count(ResourceTypes.CONFIG_MAPS)).isEqualTo(listed.size());
    for (StoredObject o : listed) {
      assertThat(store.get(ResourceTypes.CONFIG_MAPS, o.namespace(), o.name())).containsSame(o);
    }
    // and every key a list no longer has is gone for point reads too
    int absent = 0;
    for (int w = 0; w < writers; w++) {
      for (int k = 0; k < keys; k++) {
        for (int n = 0; n < 3; n++) {
          String key = "ns-" + n + "/cm-" + w + "-" + k;
          boolean inList = listed.stream().anyMatch(o -> o.key().equals(key));
          Optional<StoredObject> got = store.get(ResourceTypes.CONFIG_MAPS, "ns-" + n, "cm-" + w + "-" + k);
          assertThat(got.isPresent()).as(key).isEqualTo(inList);
          absent += inList ? 0 : 1;
        }
      }
    }
    assertThat(absent).as("some keys end removed").isPositive();
  }
}
