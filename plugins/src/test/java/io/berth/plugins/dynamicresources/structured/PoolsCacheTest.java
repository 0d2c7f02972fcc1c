package io.berth.plugins.dynamicresources.structured;

import static io.berth.plugins.dynamicresources.structured.DraObjects.claim;
import static io.berth.plugins.dynamicresources.structured.DraObjects.device;
import static io.berth.plugins.dynamicresources.structured.DraObjects.deviceClass;
import static io.berth.plugins.dynamicresources.structured.DraObjects.request;
import static io.berth.plugins.dynamicresources.structured.DraObjects.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PoolsCacheTest {
  private static final String GPU = "gpu.example.com";
  private static final String A100 = "device.attributes['" + GPU + "'].model == 'a100'";
  private final PoolsCache cache = new PoolsCache();
  private final DeviceSelectors cel = new DeviceSelectors();

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  private static ResourceSlice gpus(String node, String version, String... models) {
    io.fabric8.kubernetes.api.model.resource.v1.Device[] ds =
        new io.fabric8.kubernetes.api.model.resource.v1.Device[models.length];
    for (int i = 0; i < models.length; i++) {
      ds[i] = device("gpu-" + i, Map.of("model", models[i]), Map.of());
    }
    return new ResourceSliceBuilder(slice(node + "-gpus", node, node, GPU, ds)).editMetadata()
        .withUid("uid-" + node).withResourceVersion(version).endMetadata().build();
  }

  /** What one claim for one device of the model gets on the node ("unsatisfiable" or the device). */
  private String allocate(Pools pools, DeviceClass cls, String node, String selector) {
    ResourceClaim c = claim("c", request("r", cls.getMetadata().getName(), 1, selector));
    try {
      return new Allocator(List.of(c), Set.of(), n -> Optional.of(cls), pools, cel)
          .allocate(node(node)).map(r -> r.get(0).getDevices().getResults().get(0).getPool()
              + "/" + r.get(0).getDevices().getResults().get(0).getDevice())
          .orElse("unsatisfiable");
    } catch (AllocationException e) {
      return "error: " + e.getMessage();
    }
  }

  private static DeviceView view(Pools pools, String node, int device) {
    return pools.devicesFor(node(node)).get(device).view();
  }

  @Test
  void anUnchangedListingAnswersThePreviousPools() {
    Pools first = cache.pools(List.of(gpus("n1", "1", "a100"), gpus("n2", "1", "a100")));
    // another copy of the same versions, in another order (as a lister may list them)
    Pools again = cache.pools(List.of(gpus("n2", "1", "a100"), gpus("n1", "1", "a100")));
    assertSame(first, again);
    assertEquals("n1/gpu-0", allocate(again, deviceClass("gpu"), "n1", A100));
  }

  @Test
  void anUpdatedSliceIsReindexedAndItsOutcomesForgotten() {
    DeviceClass cls = deviceClass("gpu");
    Pools v1 = cache.pools(List.of(gpus("n1", "1", "a100"), gpus("n2", "1", "a100")));
    assertEquals("n1/gpu-0", allocate(v1, cls, "n1", A100));
    DeviceView n1Before = view(v1, "n1", 0);
    DeviceView n2Before = view(v1, "n2", 0);
    assertEquals(1, n1Before.memoized()); // the request's selector (the class has none)
    // n1's device changes model: the new version must not answer from the old outcome
    Pools v2 = cache.pools(List.of(gpus("n1", "2", "h100"), gpus("n2", "1", "a100")));
    assertNotSame(v1, v2);
    assertEquals("unsatisfiable", allocate(v2, cls, "n1", A100));
    assertNotSame(n1Before, view(v2, "n1", 0));
    // the unchanged slice keeps its views (and memo)
    assertSame(n2Before, view(v2, "n2", 0));
    assertEquals("n2/gpu-0", allocate(v2, cls, "n2", A100));
  }

  @Test
  void aDeletedSliceIsGone() {
    DeviceClass cls = deviceClass("gpu");
    Pools both = cache.pools(List.of(gpus("n1", "1", "a100"), gpus("n2", "1", "a100")));
    assertEquals("n2/gpu-0", allocate(both, cls, "n2", A100));
    Pools one = cache.pools(List.of(gpus("n1", "1", "a100")));
    assertEquals("unsatisfiable", allocate(one, cls, "n2", A100));
    assertEquals(List.of(), one.devicesFor(node("n2")));
    // recreated under the same name with a new uid: a new slice, not the forgotten one
    ResourceSlice recreated = new ResourceSliceBuilder(gpus("n2", "1", "h100")).editMetadata()
        .withUid("uid-n2-again").endMetadata().build();
    Pools again = cache.pools(List.of(gpus("n1", "1", "a100"), recreated));
    assertEquals("unsatisfiable", allocate(again, cls, "n2", A100));
  }

  @Test
  void aChangedClassSelectorIsEvaluatedAfresh() {
    Pools pools = cache.pools(List.of(gpus("n1", "1", "a100", "h100")));
    String any = "device.driver == '" + GPU + "'";
    assertEquals("n1/gpu-0", allocate(pools, deviceClass("gpu", "device.attributes['" + GPU
        + "'].model == 'a100'"), "n1", any));
    // the class now selects only h100: the memo is per expression, so the outcome follows
    assertEquals("n1/gpu-1", allocate(pools, deviceClass("gpu", "device.attributes['" + GPU
        + "'].model == 'h100'"), "n1", any));
    assertEquals("unsatisfiable", allocate(pools, deviceClass("gpu", "device.attributes['" + GPU
        + "'].model == 'v100'"), "n1", any));
  }

  @Test
  void aSliceWithoutResourceVersionMatchesOnlyItself() {
    ResourceSlice s = new ResourceSliceBuilder(gpus("n1", "1", "a100")).editMetadata()
        .withResourceVersion(null).endMetadata().build();
    Pools first = cache.pools(List.of(s));
    assertSame(first, cache.pools(List.of(s)));
    // same name and uid, no resourceVersion either: nothing says it is the same version
    ResourceSlice copy = new ResourceSliceBuilder(gpus("n1", "1", "h100")).editMetadata()
        .withResourceVersion(null).endMetadata().build();
    Pools second = cache.pools(List.of(copy));
    assertNotSame(first, second);
    assertEquals("unsatisfiable", allocate(second, deviceClass("gpu"), "n1", A100));
  }

  @Test
  void concurrentCyclesSeeTheListingTheyPassed() throws Exception {
    // two listings alternate: in A n1 has an a100, in B an h100; every answer must follow its
    // own listing, whatever the other threads passed in between
    List<ResourceSlice> a = List.of(gpus("n1", "1", "a100"), gpus("n2", "1", "h100"));
    List<ResourceSlice> b = List.of(gpus("n1", "2", "h100"), gpus("n2", "1", "h100"));
    DeviceClass cls = deviceClass("gpu");
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 300; i++) {
          boolean useA = (i + id) % 2 == 0;
          Pools p = cache.pools(useA ? a : b);
          assertEquals(useA ? "n1/gpu-0" : "unsatisfiable", allocate(p, cls, "n1", A100));
          assertEquals("unsatisfiable", allocate(p, cls, "n2", A100));
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
  }
}
