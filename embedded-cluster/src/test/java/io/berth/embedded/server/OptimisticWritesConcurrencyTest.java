package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The writes prepared outside the store lock stay atomic: concurrent patches of one object all land (each one
 * applied to the version it is stored over), concurrent bindings of one pod bind it exactly once, and concurrent
 * creates of one name create it exactly once.
 */
class OptimisticWritesConcurrencyTest {

  private static final int THREADS = 8;

  private final ResourceOperations ops = new ResourceOperations(new ObjectStore(100_000),
      new DefaultServerHooks(Clock.systemUTC()), Clock.systemUTC());

  OptimisticWritesConcurrencyTest() {
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "default");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
  }

  private static ObjectNode pod(String name) {
    ObjectNode pod = Json.object();
    pod.putObject("metadata").put("name", name);
    pod.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "pause");
    return pod;
  }

  private static List<Object> onThreads(java.util.function.IntFunction<Object> work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Object>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int id = t;
        futures.add(pool.submit(() -> {
          go.await();
          try {
            return work.apply(id);
          } catch (ApiException e) {
            return e;
          }
        }));
      }
      go.countDown();
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentMergePatchesOfOneObjectAllLand() throws Exception {
    ops.create(ResourceTypes.PODS, "default", pod("p"));
    int perThread = 200;
    onThreads(t -> {
      for (int i = 0; i < perThread; i++) {
        byte[] patch = ("{\"metadata\":{\"labels\":{\"t" + t + "-" + i + "\":\"x\"}}}")
            .getBytes(StandardCharsets.UTF_8);
        ops.patch(ResourceTypes.PODS, "default", "p", "application/merge-patch+json", patch, false);
      }
      return null;
    });
    StoredObject p = ops.get(ResourceTypes.PODS, "default", "p");
    assertThat(p.labels()).hasSize(THREADS * perThread);
  }

  @Test
  void concurrentBindingsOfOnePodBindItOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      String name = "b" + round;
      ops.create(ResourceTypes.PODS, "default", pod(name));
      AtomicInteger bound = new AtomicInteger();
      List<Object> results = onThreads(t -> {
        ObjectNode binding = Json.object();
        binding.putObject("metadata").put("name", name);
        binding.putObject("target").put("kind", "Node").put("name", "node-" + t);
        new PodSubresources(ops).bind("default", name, binding);
        bound.incrementAndGet();
        return "node-" + t;
      });
      assertThat(bound.get()).as("round %d", round).isEqualTo(1);
      String winner = (String) results.stream().filter(r -> r instanceof String).findFirst().orElseThrow();
      assertThat(results.stream().filter(r -> r instanceof ApiException e && e.code() == 409)).hasSize(THREADS - 1);
      assertThat(Json.text(ops.get(ResourceTypes.PODS, "default", name).tree(), "spec", "nodeName"))
          .isEqualTo(winner);
    }
  }

  @Test
  void concurrentCreatesOfOneNameCreateItOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      String name = "c" + round;
      List<Object> results = onThreads(t -> ops.create(ResourceTypes.PODS, "default", pod(name)));
      assertThat(results.stream().filter(r -> r instanceof StoredObject)).as("round %d", round).hasSize(1);
      assertThat(results.stream().filter(r -> r instanceof ApiException e && e.code() == 409)).hasSize(THREADS - 1);
    }
  }

  @Test
  void concurrentMutationsOfOneObjectAllLand() throws Exception {
    ops.create(ResourceTypes.PODS, "default", pod("m"));
    int perThread = 200;
    onThreads(t -> {
      for (int i = 0; i < perThread; i++) {
        ops.mutate(ResourceTypes.PODS, "default", "m", obj -> {
          ObjectNode ann = Json.objectAt(obj, "metadata", "annotations");
          ann.put("count", Integer.toString(Integer.parseInt(ann.path("count").asString("0")) + 1));
          return obj;
        }, false);
      }
      return null;
    });
    StoredObject m = ops.get(ResourceTypes.PODS, "default", "m");
    assertThat(Json.text(m.tree(), "metadata", "annotations", "count")).isEqualTo(Integer.toString(THREADS * perThread));
    assertThat(m.json()).isEqualTo(Json.bytes(m.tree()));
  }

  @Test
  void concurrentUpdatesWithTheSameResourceVersionLetExactlyOneWin() throws Exception {
    for (int round = 0; round < 20; round++) {
      String name = "u" + round;
      StoredObject created = ops.create(ResourceTypes.PODS, "default", pod(name));
      List<Object> results = onThreads(t -> {
        ObjectNode next = created.copy();
        Json.objectAt(next, "metadata", "labels").put("writer", "t" + t);
        return ops.update(ResourceTypes.PODS, "default", name, next, false);
      });
      assertThat(results.stream().filter(r -> r instanceof StoredObject)).as("round %d", round).hasSize(1);
      assertThat(results.stream().filter(r -> r instanceof ApiException e && e.code() == 409)).hasSize(THREADS - 1);
    }
  }

  @Test
  void concurrentDeletesOfOneObjectRemoveItOnce() throws Exception {
    for (int round = 0; round < 20; round++) {
      String name = "d" + round;
      ops.create(ResourceTypes.PODS, "default", pod(name));
      List<Object> results = onThreads(t -> ops.delete(ResourceTypes.PODS, "default", name,
          DeleteOptions.withGracePeriod(0)));
      assertThat(results.stream().filter(r -> r instanceof ResourceOperations.DeleteResult d && d.removed()))
          .as("round %d", round).hasSize(1);
      assertThat(results.stream().filter(r -> r instanceof ApiException e && e.code() == 404)).hasSize(THREADS - 1);
      assertThat(ops.store().get(ResourceTypes.PODS, "default", name)).isEmpty();
    }
  }
}
