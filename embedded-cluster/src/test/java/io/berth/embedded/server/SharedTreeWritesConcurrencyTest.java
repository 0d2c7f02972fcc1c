package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
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
 * Writes that build the next version sharing the unchanged parts of the current one
 * ({@link StoredObject#copySharing}: bindings, status updates and patches, {@link ResourceOperations#mutateStatus})
 * leave every earlier version as it was
 * stored: each version's tree still serializes to its own bytes after later writes, from 8 writers at once, and the
 * next version's bytes are what a whole copy would have given.
 */
class SharedTreeWritesConcurrencyTest {

  private final ResourceOperations ops = new ResourceOperations(new ObjectStore(1_000_000),
      new DefaultServerHooks(Clock.systemUTC()), Clock.systemUTC());

  SharedTreeWritesConcurrencyTest() {
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "default");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
  }

  private static ObjectNode pod(String name) {
    ObjectNode pod = Json.object();
    pod.putObject("metadata").put("name", name).putObject("labels").put("app", "web");
    ObjectNode spec = pod.putObject("spec");
    spec.putArray("containers").addObject().put("name", "c").put("image", "pause")
        .putObject("resources").putObject("requests").put("cpu", "100m");
    spec.putObject("nodeSelector").put("zone", "a");
    return pod;
  }

  @Test
  void copySharingSerializesAsACopyAndChangesNothingShared() {
    StoredObject stored = ops.create(ResourceTypes.PODS, "default", pod("p"));
    byte[] before = stored.json().clone();
    ObjectNode whole = stored.copy();

    ObjectNode shared = stored.copySharing(Set.of("status"), Set.of("spec"));
    assertThat(Json.bytes(shared)).isEqualTo(Json.bytes(whole));
    Json.metadata(shared).put("resourceVersion", "x").putObject("annotations").put("a", "b");
    Json.objectAt(shared, "spec").put("nodeName", "n1");
    Json.objectAt(shared, "status").put("phase", "Running");
    shared.put("extra", true);

    assertThat(stored.tree()).isEqualTo(whole);
    assertThat(stored.json()).isEqualTo(before);
    assertThat(Json.bytes(stored.tree())).isEqualTo(before);
    // the unchanged parts are the stored version's own nodes, not copies
    assertThat(shared.path("spec").get("containers")).isSameAs(stored.tree().path("spec").get("containers"));
  }

  @Test
  void bindingsAndStatusWritesFromEightThreadsLeaveEveryEarlierVersionIntact() throws Exception {
    int threads = 8;
    int podsPerThread = 60;
    List<StoredObject> versions = new CopyOnWriteArrayList<>();
    ops.store().addListener(e -> versions.add(e.object()));
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < podsPerThread; i++) {
        ops.create(ResourceTypes.PODS, "default", pod("p-" + t + "-" + i));
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    PodSubresources pods = new PodSubresources(ops);
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < podsPerThread; i++) {
          String name = "p-" + id + "-" + i;
          ObjectNode binding = Json.object();
          binding.putObject("metadata").put("name", name).putObject("annotations").put("bound-by", "t" + id);
          binding.putObject("target").put("kind", "Node").put("name", "node-" + (i % 5));
          pods.bind("default", name, binding);
          // a status update (PUT /status), as a client sends it: the whole object with a new status
          ObjectNode put = ops.get(ResourceTypes.PODS, "default", name).copy();
          Json.objectAt(put, "status").put("phase", "Running").put("podIP", "10.0.0." + i);
          ops.update(ResourceTypes.PODS, "default", name, put, true);
          // a status merge patch, as the scheduler's condition writes
          String patch = "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}";
          ops.patch(ResourceTypes.PODS, "default", name, "application/merge-patch+json",
              patch.getBytes(StandardCharsets.UTF_8), true);
          // an in-process status mutation, as the simulated kubelet writes
          ops.mutate(ResourceTypes.PODS, "default", name, obj -> {
            Json.objectAt(obj, "status").put("hostIP", "192.168.0." + id);
            return obj;
          }, true);
          // the kubelet's status write: status copied, the rest shared
          ops.mutateStatus(ResourceTypes.PODS, "default", name,
              (current, status) -> status.put("message", "on " + Json.text(current, "spec", "nodeName")));
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();

    assertThat(versions).hasSize(threads * podsPerThread * 6);
    for (StoredObject v : versions) {
      // the tree a version keeps (or parses again) is still exactly the bytes it was stored as
      assertThat(Json.bytes(v.tree())).as("%s", v).isEqualTo(v.json());
      assertThat(Json.parse(v.json())).as("%s", v).isEqualTo(v.tree());
    }
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < podsPerThread; i++) {
        ObjectNode last = ops.get(ResourceTypes.PODS, "default", "p-" + t + "-" + i).tree();
        assertThat(Json.text(last, "spec", "nodeName")).isEqualTo("node-" + (i % 5));
        assertThat(Json.text(last, "metadata", "annotations", "bound-by")).isEqualTo("t" + t);
        assertThat(Json.text(last, "status", "phase")).isEqualTo("Running");
        assertThat(Json.text(last, "status", "podIP")).isEqualTo("10.0.0." + i);
        assertThat(Json.text(last, "status", "hostIP")).isEqualTo("192.168.0." + t);
        assertThat(Json.text(last, "spec", "nodeSelector", "zone")).isEqualTo("a");
        assertThat(Json.text(last, "status", "message")).isEqualTo("on node-" + (i % 5));
      }
    }
  }

  @Test
  void mutateStatusKeepsAnAppsObjectsAnnotationsAndStartsAMissingStatus() {
    ObjectNode rs = Json.object();
    rs.put("apiVersion", "apps/v1").put("kind", "ReplicaSet");
    rs.putObject("metadata").put("name", "rs").putObject("annotations").put("deployment.kubernetes.io/revision", "3");
    ObjectNode spec = rs.putObject("spec");
    spec.put("replicas", 1);
    spec.putObject("selector").putObject("matchLabels").put("app", "web");
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", "web");
    template.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "pause");
    StoredObject created = ops.create(ResourceTypes.REPLICA_SETS, "default", rs);

    StoredObject written = ops.mutateStatus(ResourceTypes.REPLICA_SETS, "default", "rs",
        (current, status) -> status.put("replicas", 1)).orElseThrow();

    assertThat(written.resourceVersion()).isGreaterThan(created.resourceVersion());
    assertThat(Json.text(written.tree(), "metadata", "annotations", "deployment.kubernetes.io/revision"))
        .isEqualTo("3");
    assertThat(written.tree().path("status").path("replicas").asInt()).isEqualTo(1);
    assertThat(written.tree().get("spec")).isEqualTo(created.tree().get("spec"));
    assertThat(Json.bytes(created.tree())).isEqualTo(created.json());
    assertThat(ops.mutateStatus(ResourceTypes.REPLICA_SETS, "default", "missing", (c, s) -> { })).isEmpty();
  }
}
