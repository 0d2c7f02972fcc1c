package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The compact stored form: the tree parsed back from the stored bytes equals the one stored, whether or not the
 * original is still alive and from many threads at once; indexed fields and interned strings; and bulk creates
 * racing single creates keep one strictly ordered event stream.
 */
class StoredObjectTest {

  private static ObjectNode pod(String name) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "Pod");
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    meta.put("namespace", new String("team-" + 1));
    meta.put("uid", "uid-" + name);
    meta.putObject("labels").put("app", new String("web")).put("tier", "front");
    o.putObject("spec").putArray("containers").addObject().put("name", "main").put("image", "nginx");
    return o;
  }

  @Test
  void theTreeParsedBackFromTheBytesEqualsTheStoredTree() {
    ObjectNode original = pod("a");
    ObjectNode expected = original.deepCopy();
    StoredObject stored = new StoredObject(ResourceTypes.PODS, original, 7);
    original = null;
    System.gc();
    assertThat(stored.tree()).isEqualTo(expected);
    assertThat(stored.copy()).isEqualTo(expected).isNotSameAs(stored.tree());
    assertThat(Json.parse(stored.json())).isEqualTo(expected);
    assertThat(stored.key()).isEqualTo("team-1/a");
    assertThat(stored.uid()).isEqualTo("uid-a");
    assertThat(stored.labels()).containsOnly(java.util.Map.entry("app", "web"), java.util.Map.entry("tier", "front"));
    assertThat(stored.terminating()).isFalse();
  }

  @Test
  void namespacesAndLabelsAreSharedBetweenObjects() {
    StoredObject a = new StoredObject(ResourceTypes.PODS, pod("a"), 1);
    StoredObject b = new StoredObject(ResourceTypes.PODS, pod("b"), 2);
    assertThat(a.namespace()).isSameAs(b.namespace());
    assertThat(a.labels().get("app")).isSameAs(b.labels().get("app"));
  }

  @Test
  void copiesAreIndependentOfTheSharedTree() {
    StoredObject stored = new StoredObject(ResourceTypes.PODS, pod("a"), 1);
    ObjectNode copy = stored.copy();
    Json.metadata(copy).put("name", "changed");
    assertThat(Json.text(stored.tree(), "metadata", "name")).isEqualTo("a");
  }

  @Test
  void manyThreadsReadingTreesWhileTheCacheIsClearedAllSeeTheStoredObject() throws Exception {
    List<StoredObject> objects = new ArrayList<>();
    List<ObjectNode> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ObjectNode tree = pod("p-" + i);
      expected.add(tree.deepCopy());
      objects.add(new StoredObject(ResourceTypes.PODS, tree, i + 1));
    }
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CountDownLatch start = new CountDownLatch(1);
    List<String> problems = new CopyOnWriteArrayList<>();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int round = 0; round < 50; round++) {
          for (int i = 0; i < objects.size(); i++) {
            int k = (i + offset * 17) % objects.size();
            ObjectNode tree = round % 2 == 0 ? objects.get(k).tree() : objects.get(k).copy();
            if (!tree.equals(expected.get(k))) {
              problems.add("object " + k + " read back as " + tree);
            }
          }
        }
        return null;
      }));
    }
    // Collections clear the weak cache while the readers run, so parses and cache hits interleave.
    futures.add(pool.submit(() -> {
      start.await();
      for (int i = 0; i < 20; i++) {
        System.gc();
        Thread.sleep(5);
      }
      return null;
    }));
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(problems).isEmpty();
  }

  @Test
  void bulkAndSingleCreatesFromManyThreadsKeepOneOrderedEventStream() throws Exception {
    ObjectStore store = new ObjectStore(1_000_000);
    ResourceOperations ops = new ResourceOperations(store, new DefaultServerHooks(Clock.systemUTC()),
        Clock.systemUTC());
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "team-1");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
    List<WatchEvent> seen = new CopyOnWriteArrayList<>();
    store.addListener(seen::add);
    int threads = 8;
    int batches = 20;
    int batchSize = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int b = 0; b < batches; b++) {
          if (id % 2 == 0) {
            List<ObjectNode> bodies = new ArrayList<>();
            for (int i = 0; i < batchSize; i++) {
              bodies.add(pod("bulk-" + id + "-" + b + "-" + i));
            }
            ops.createAll(ResourceTypes.PODS, "team-1", bodies);
          } else {
            for (int i = 0; i < batchSize; i++) {
              ops.create(ResourceTypes.PODS, "team-1", pod("single-" + id + "-" + b + "-" + i));
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
    int total = threads * batches * batchSize;
    assertThat(store.count(ResourceTypes.PODS)).isEqualTo(total);
    assertThat(seen).hasSize(total).allMatch(e -> e.type() == WatchEvent.Type.ADDED);
    assertThat(seen).extracting(WatchEvent::resourceVersion).isSorted().doesNotHaveDuplicates();
    // A batch is one atomic step: its events are consecutive, in list order.
    for (int i = 0; i < seen.size(); i++) {
      String name = seen.get(i).object().name();
      if (name.startsWith("bulk-") && name.endsWith("-0")) {
        String prefix = name.substring(0, name.length() - 1);
        for (int j = 0; j < batchSize; j++) {
          assertThat(seen.get(i + j).object().name()).isEqualTo(prefix + j);
        }
      }
    }
    Set<String> uids = new HashSet<>();
    seen.forEach(e -> uids.add(e.object().uid()));
    assertThat(uids).hasSize(total);
  }
}
