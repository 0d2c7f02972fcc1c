package io.berth.plugins.dynamicresources;

import static io.berth.plugins.dynamicresources.structured.DraObjects.claim;
import static io.berth.plugins.dynamicresources.structured.DraObjects.device;
import static io.berth.plugins.dynamicresources.structured.DraObjects.deviceClass;
import static io.berth.plugins.dynamicresources.structured.DraObjects.request;
import static io.berth.plugins.dynamicresources.structured.DraObjects.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.berth.framework.ActionType;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EventResource;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.plugins.dynamicresources.structured.DeviceId;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DynamicResourcesTest {
  private final MapLister<ResourceClaim> claims = new MapLister<>();
  private final MapLister<ResourceSlice> slices = new MapLister<>();
  private final MapLister<DeviceClass> classes = new MapLister<>();
  private final AllocatedDevices devices = new AllocatedDevices(claims);
  private final AtomicLong clock = new AtomicLong();
  private final DynamicResources plugin = new DynamicResources(DynamicResourcesArgs.DEFAULTS,
      claims, slices, classes, devices, new ClaimWriter(() -> {
        throw new AssertionError("no API writes in this test");
      }), clock::get);

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  private static NodeInfo nodeInfo(String name) {
    NodeInfo ni = new NodeInfo();
    ni.setNode(node(name));
    return ni;
  }

  private static Pod pod(String name, String... claimNames) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid("uid-" + name).endMetadata().withNewSpec().endSpec();
    for (String c : claimNames) {
      b.editSpec().addNewResourceClaim().withName("pc-" + c).withResourceClaimName(c)
          .endResourceClaim().endSpec();
    }
    return b.build();
  }

  private void gpus(String node, int n) {
    io.fabric8.kubernetes.api.model.resource.v1.Device[] ds =
        new io.fabric8.kubernetes.api.model.resource.v1.Device[n];
    for (int i = 0; i < n; i++) {
      ds[i] = device("gpu-" + i, Map.of("model", "a100"), Map.of());
    }
    slices.put(slice("slice-" + node, node, node, "gpu.example.com", ds));
  }

  @Test
  void preEnqueueWaitsForTheClaim() {
    Pod pod = pod("p", "c1");
    Status s = plugin.preEnqueue(pod);
    assertEquals(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, s.code());
    assertEquals("resourceclaim.resource.k8s.io \"c1\" not found", s.message());
    claims.put(claim("c1", request("r", "gpu", 1)));
    assertTrue(plugin.preEnqueue(pod).isSuccess());
  }

  @Test
  void preEnqueueWaitsForTheGeneratedClaimName() {
    Pod pod = new PodBuilder(pod("p")).editSpec().addNewResourceClaim().withName("gpus")
        .withResourceClaimTemplateName("tmpl").endResourceClaim().endSpec().build();
    assertEquals("pod \"default/p\": ResourceClaim not created yet",
        plugin.preEnqueue(pod).message());
    Pod withStatus = new PodBuilder(pod).withNewStatus().addNewResourceClaimStatus()
        .withName("gpus").withResourceClaimName("p-gpus-abc").endResourceClaimStatus()
        .endStatus().build();
    ResourceClaim generated = new ResourceClaimBuilder(claim("p-gpus-abc",
        request("r", "gpu", 1))).editMetadata().addNewOwnerReference().withController(true)
        .withUid("someone-else").withName("q").withKind("Pod").withApiVersion("v1")
        .endOwnerReference().endMetadata().build();
    claims.put(generated);
    assertEquals("ResourceClaim default/p-gpus-abc was not created for pod default/p (pod is"
        + " not owner)", plugin.preEnqueue(withStatus).message());
    claims.put(new ResourceClaimBuilder(generated).editMetadata().editFirstOwnerReference()
        .withUid("uid-p").endOwnerReference().endMetadata().build());
    assertTrue(plugin.preEnqueue(withStatus).isSuccess());
    // the pod update that adds the generated name queues the pod
    assertEquals(QueueingHint.QUEUE, plugin.isSchedulableAfterPodChange(pod, pod, withStatus));
    assertEquals(QueueingHint.QUEUE_SKIP, plugin.isSchedulableAfterPodChange(pod, pod, pod));
  }

  @Test
  void podWithoutClaimsIsSkipped() {
    CycleState cs = new CycleState();
    assertTrue(plugin.preFilter(cs, pod("p"), List.of()).status().isSkip());
  }

  @Test
  void missingDeviceClassIsUnresolvable() {
    claims.put(claim("c1", request("r", "gpu", 1)));
    PreFilterResult r = plugin.preFilter(new CycleState(), pod("p", "c1"), List.of());
    assertEquals(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, r.status().code());
    assertEquals("request r: device class gpu does not exist", r.status().message());
  }

  @Test
  void filterReserveAndInFlightDevices() {
    classes.put(deviceClass("gpu"));
    gpus("n1", 1);
    gpus("n2", 1);
    claims.put(claim("c1", request("r", "gpu", 1)));
    claims.put(claim("c2", request("r", "gpu", 1)));
    CycleState cs = new CycleState();
    Pod p1 = pod("p1", "c1");
    assertTrue(plugin.preFilter(cs, p1, List.of()).status().isSuccess());
    assertTrue(plugin.filter(cs, p1, nodeInfo("n1")).isSuccess());
    Status none = plugin.filter(cs, p1, nodeInfo("n3"));
    assertEquals("cannot allocate all claims", none.message());
    // preemption may help: victims' devices count as free in its simulation
    assertEquals(Code.UNSCHEDULABLE, none.code());
    assertTrue(plugin.reserve(cs, p1, "n1").isSuccess());
    assertEquals(Set.of(new DeviceId("gpu.example.com", "n1", "gpu-0")),
        devices.snapshot());

    // the second pod's cycle sees n1's only GPU as taken
    CycleState cs2 = new CycleState();
    Pod p2 = pod("p2", "c2");
    assertTrue(plugin.preFilter(cs2, p2, List.of()).status().isSuccess());
    assertEquals("cannot allocate all claims", plugin.filter(cs2, p2, nodeInfo("n1")).message());
    assertTrue(plugin.filter(cs2, p2, nodeInfo("n2")).isSuccess());

    // a pod sharing p1's claim while its allocation is in flight waits
    Pod p3 = pod("p3", "c1");
    assertEquals("resource claim default/c1 is in the process of being allocated",
        plugin.preFilter(new CycleState(), p3, List.of()).status().message());

    plugin.unreserve(cs, p1, "n1");
    assertEquals(Set.of(), devices.snapshot());
    assertTrue(plugin.preFilter(new CycleState(), p3, List.of()).status().isSuccess());
  }

  @Test
  void allocatedClaimIsCheckedAgainstItsNodeSelector() {
    classes.put(deviceClass("gpu"));
    ResourceClaim allocated = new ResourceClaimBuilder(claim("c1", request("r", "gpu", 1)))
        .withNewStatus().withNewAllocation().withNodeSelector(
            io.berth.plugins.dynamicresources.structured.Allocator.byName("n1"))
        .withNewDevices().addNewResult().withRequest("r").withDriver("d").withPool("n1")
        .withDevice("gpu-0").endResult().endDevices().endAllocation().endStatus().build();
    claims.put(allocated);
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    assertTrue(plugin.filter(cs, p, nodeInfo("n1")).isSuccess());
    assertEquals("resourceclaim not available on the node",
        plugin.filter(cs, p, nodeInfo("n2")).message());
  }

  @Test
  void selectorErrorIsReportedOnThePodNotThrown() {
    classes.put(deviceClass("gpu", "device.attributes['gpu.example.com'].nosuch == 1"));
    gpus("n1", 1);
    claims.put(claim("c1", request("r", "gpu", 1)));
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    Status s = plugin.filter(cs, p, nodeInfo("n1"));
    assertEquals(Code.ERROR, s.code());
    assertTrue(s.message().startsWith("class gpu: selector #0: CEL runtime error: "),
        s.message());
    assertTrue(s.message().contains("device.attributes['gpu.example.com'].nosuch == 1"));
  }

  @Test
  void aSelectorOverTheCostLimitFailsItsPodOnlyNamingClaimAndExpression() {
    classes.put(deviceClass("gpu", "device.driver == 'gpu.example.com'"));
    gpus("n1", 1);
    String costly = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b,"
        + " [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d,"
        + " [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f"
        + " > 0))))))";
    claims.put(claim("costly", request("r", "gpu", 1, costly)));
    claims.put(claim("fine", request("r", "gpu", 1,
        "device.attributes['gpu.example.com'].model == 'a100'")));
    CycleState cs = new CycleState();
    Pod p = pod("p", "costly");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    Status s = plugin.filter(cs, p, nodeInfo("n1"));
    assertEquals(Code.ERROR, s.code());
    assertTrue(s.message().startsWith("claim default/costly: selector #0: CEL runtime error:"
        + " operation cancelled: actual cost limit exceeded"), s.message());
    assertTrue(s.message().contains(costly), s.message());
    // the same error on a retry, and the next pod is served as usual
    Status again = plugin.filter(cs, p, nodeInfo("n1"));
    assertEquals(s.message(), again.message());
    CycleState cs2 = new CycleState();
    Pod q = pod("q", "fine");
    assertTrue(plugin.preFilter(cs2, q, List.of()).status().isSuccess());
    assertTrue(plugin.filter(cs2, q, nodeInfo("n1")).isSuccess());
  }

  @Test
  void aTooLongClassSelectorIsACompileErrorNamingTheClass() {
    String longExpression = "device.driver == 'gpu.example.com'" + " && true".repeat(1300);
    classes.put(deviceClass("gpu", longExpression));
    gpus("n1", 1);
    claims.put(claim("c1", request("r", "gpu", 1)));
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    Status s = plugin.filter(cs, p, nodeInfo("n1"));
    assertEquals(Code.ERROR, s.code());
    assertTrue(s.message().startsWith("class gpu: selector #0: CEL compile error: compilation"
        + " failed: expression too long"), s.message());
  }

  @Test
  void aSliceUpdateIsSeenByTheNextCycle() {
    classes.put(deviceClass("gpu", "device.driver == 'gpu.example.com'"));
    gpus("n1", 1);
    claims.put(claim("c1", request("r", "gpu", 1,
        "device.attributes['gpu.example.com'].model == 'a100'")));
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    assertTrue(plugin.filter(cs, p, nodeInfo("n1")).isSuccess());
    // the driver withdraws the node's slice: the next cycle sees no device there
    slices.remove(slice("slice-n1", "n1", "n1", "gpu.example.com"));
    CycleState gone = new CycleState();
    assertTrue(plugin.preFilter(gone, p, List.of()).status().isSuccess());
    assertEquals("cannot allocate all claims", plugin.filter(gone, p, nodeInfo("n1")).message());
    // it republishes it with another model, then with the model again
    slices.put(slice("slice-n1", "n1", "n1", "gpu.example.com",
        device("gpu-0", Map.of("model", "h100"), Map.of())));
    CycleState other = new CycleState();
    assertTrue(plugin.preFilter(other, p, List.of()).status().isSuccess());
    assertEquals("cannot allocate all claims", plugin.filter(other, p, nodeInfo("n1")).message());
    gpus("n1", 1);
    CycleState back = new CycleState();
    assertTrue(plugin.preFilter(back, p, List.of()).status().isSuccess());
    assertTrue(plugin.filter(back, p, nodeInfo("n1")).isSuccess());
  }

  /** A claimful victim with its claim allocated on n1 and reserved for it alone. */
  private PodInfo victimWithGpuOnN1() {
    classes.put(deviceClass("gpu"));
    gpus("n1", 1);
    ResourceClaim victimClaim = new ResourceClaimBuilder(claim("victim-claim",
        request("r", "gpu", 1))).withNewStatus().withNewAllocation()
        .withNodeSelector(io.berth.plugins.dynamicresources.structured.Allocator.byName("n1"))
        .withNewDevices().addNewResult().withRequest("r").withDriver("gpu.example.com")
        .withPool("n1").withDevice("gpu-0").endResult().endDevices().endAllocation()
        .addNewReservedFor().withResource("pods").withName("victim").withUid("uid-victim")
        .endReservedFor().endStatus().build();
    claims.put(victimClaim);
    devices.upsert(victimClaim);
    return PodInfo.of(pod("victim", "victim-claim"));
  }

  @Test
  void aClaimlessPodsStateIsSharedByCopiesAndAClaimfulOneIsNot() {
    CycleState claimless = new CycleState();
    plugin.preFilter(claimless, pod("p"), List.of());
    DynamicResourcesState s = claimless.readOrFail(DynamicResources.STATE_KEY,
        DynamicResourcesState.class);
    assertTrue(s == claimless.copy().readOrFail(DynamicResources.STATE_KEY,
        DynamicResourcesState.class));

    classes.put(deviceClass("gpu"));
    claims.put(claim("c1", request("r", "gpu", 1)));
    CycleState claimful = new CycleState();
    assertTrue(plugin.preFilter(claimful, pod("q", "c1"), List.of()).status().isSuccess());
    assertTrue(claimful.readOrFail(DynamicResources.STATE_KEY, DynamicResourcesState.class)
        != claimful.copy().readOrFail(DynamicResources.STATE_KEY, DynamicResourcesState.class));
  }

  /**
   * Preemption simulates on copies from many threads; for a claimless preemptor they all share
   * one state, which removing a claimful victim must leave as it was (nothing freed, and Filter
   * still skipped) on every thread.
   */
  @Test
  void concurrentSimulationsOnCopiesOfAClaimlessStateLeaveItUnchanged() throws Exception {
    PodInfo victim = victimWithGpuOnN1();
    Pod p = pod("p");
    CycleState cs = new CycleState();
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSkip());
    DynamicResourcesState shared = cs.readOrFail(DynamicResources.STATE_KEY,
        DynamicResourcesState.class);
    var extensions = plugin.preFilterExtensions().orElseThrow();
    int threads = 8;
    var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    var start = new java.util.concurrent.CountDownLatch(1);
    try {
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < 2_000; i++) {
            CycleState simulation = cs.copy();
            // the framework skips a skipped plugin's extensions; called directly here, they
            // must still not write into the shared state
            assertTrue(extensions.removePod(simulation, p, victim, nodeInfo("n1")).isSuccess());
          }
          return null;
        }));
      }
      start.countDown();
      for (var f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertTrue(shared.freed.isEmpty());
    assertTrue(shared == cs.copy().readOrFail(DynamicResources.STATE_KEY,
        DynamicResourcesState.class));
  }

  @Test
  void preemptionSimulationSeesVictimDevicesAsFree() {
    classes.put(deviceClass("gpu"));
    gpus("n1", 1);
    ResourceClaim victimClaim = new ResourceClaimBuilder(claim("victim-claim",
        request("r", "gpu", 1))).withNewStatus().withNewAllocation()
        .withNodeSelector(io.berth.plugins.dynamicresources.structured.Allocator.byName("n1"))
        .withNewDevices().addNewResult().withRequest("r").withDriver("gpu.example.com")
        .withPool("n1").withDevice("gpu-0").endResult().endDevices().endAllocation()
        .addNewReservedFor().withResource("pods").withName("victim").withUid("uid-victim")
        .endReservedFor().endStatus().build();
    claims.put(victimClaim);
    devices.upsert(victimClaim);
    claims.put(claim("c1", request("r", "gpu", 1)));
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    assertEquals("cannot allocate all claims", plugin.filter(cs, p, nodeInfo("n1")).message());

    CycleState simulation = cs.copy();
    PodInfo victim = PodInfo.of(pod("victim", "victim-claim"));
    plugin.preFilterExtensions().orElseThrow()
        .removePod(simulation, p, victim, nodeInfo("n1"));
    assertTrue(plugin.filter(simulation, p, nodeInfo("n1")).isSuccess());
    // the original state is untouched, and adding the victim back takes the device again
    assertEquals("cannot allocate all claims", plugin.filter(cs, p, nodeInfo("n1")).message());
    plugin.preFilterExtensions().orElseThrow().addPod(simulation, p, victim, nodeInfo("n1"));
    assertEquals("cannot allocate all claims",
        plugin.filter(simulation, p, nodeInfo("n1")).message());
  }

  @Test
  void filterTimeoutIsUnresolvable() {
    classes.put(deviceClass("gpu"));
    io.fabric8.kubernetes.api.model.resource.v1.Device[] ds =
        new io.fabric8.kubernetes.api.model.resource.v1.Device[100];
    for (int i = 0; i < ds.length; i++) {
      ds[i] = device("gpu-" + i, Map.of("numa", (long) i), Map.of());
    }
    slices.put(slice("s", "n1", "n1", "gpu.example.com", ds));
    claims.put(claim("c1", List.of(request("r", "gpu", 3)),
        io.berth.plugins.dynamicresources.structured.DraObjects.matchAttribute(
            "gpu.example.com/numa")));
    DynamicResources slowClock = new DynamicResources(DynamicResourcesArgs.DEFAULTS, claims,
        slices, classes, devices, null, () -> clock.addAndGet(1_000_000_000L));
    CycleState cs = new CycleState();
    Pod p = pod("p", "c1");
    assertTrue(slowClock.preFilter(cs, p, List.of()).status().isSuccess());
    assertEquals("timed out trying to allocate devices",
        slowClock.filter(cs, p, nodeInfo("n1")).message());
  }

  @Test
  void claimHintQueuesOnlyForTheUsedClaimOrADeallocation() {
    ResourceClaim c1 = claim("c1", request("r", "gpu", 1));
    ResourceClaim other = claim("other", request("r", "gpu", 1));
    claims.put(c1);
    claims.put(other);
    Pod p = pod("p", "c1");
    assertEquals(QueueingHint.QUEUE, plugin.isSchedulableAfterClaimChange(p, null, c1));
    assertEquals(QueueingHint.QUEUE_SKIP, plugin.isSchedulableAfterClaimChange(p, null, other));
    assertEquals(QueueingHint.QUEUE_SKIP, plugin.isSchedulableAfterClaimChange(p, c1, c1));
    ResourceClaim allocatedOther = new ResourceClaimBuilder(other).withNewStatus()
        .withNewAllocation().endAllocation().endStatus().build();
    assertEquals(QueueingHint.QUEUE,
        plugin.isSchedulableAfterClaimChange(p, allocatedOther, other));
  }

  @Test
  void theClaimHintFreesADeallocationsDevicesBeforeThePluginsHandlerRan() {
    classes.put(deviceClass("gpu"));
    gpus("n1", 1);
    ResourceClaim holder = new ResourceClaimBuilder(claim("holder", request("r", "gpu", 1)))
        .editMetadata().withResourceVersion("1").endMetadata().withNewStatus().withNewAllocation()
        .withNewDevices().addNewResult().withRequest("r").withDriver("gpu.example.com")
        .withPool("n1").withDevice("gpu-0").endResult().endDevices().endAllocation().endStatus()
        .build();
    claims.put(holder);
    plugin.claimHandler().onAdd(holder);
    claims.put(claim("c1", request("r", "gpu", 1)));
    Pod p = pod("p", "c1");
    CycleState cs = new CycleState();
    assertTrue(plugin.preFilter(cs, p, List.of()).status().isSuccess());
    assertEquals("cannot allocate all claims", plugin.filter(cs, p, nodeInfo("n1")).message());
    // the deallocation reaches the store; the queue's handler asks the hint first
    ResourceClaim freed = new ResourceClaimBuilder(holder).editMetadata().withResourceVersion("2")
        .endMetadata().withStatus(null).build();
    claims.put(freed);
    assertEquals(QueueingHint.QUEUE, plugin.isSchedulableAfterClaimChange(p, holder, freed));
    CycleState again = new CycleState();
    assertTrue(plugin.preFilter(again, p, List.of()).status().isSuccess());
    assertTrue(plugin.filter(again, p, nodeInfo("n1")).isSuccess());
    // the handler's late notification changes nothing
    plugin.claimHandler().onUpdate(holder, freed);
    assertEquals(Set.of(), devices.snapshot());
  }

  @Test
  void registersUpstreamsEvents() {
    List<EventResource> resources = plugin.eventsToRegister().stream()
        .map(e -> e.event().resource()).toList();
    assertEquals(List.of(EventResource.NODE, EventResource.RESOURCE_CLAIM, EventResource.POD,
        EventResource.DEVICE_CLASS, EventResource.RESOURCE_SLICE), resources);
    assertEquals(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM,
        plugin.eventsToRegister().get(2).event().actionType());
  }

  @Test
  void argsAreValidated() {
    assertEquals(DynamicResourcesArgs.DEFAULTS, DynamicResourcesArgs.parse(Map.of()));
    assertEquals(java.time.Duration.ofSeconds(90),
        DynamicResourcesArgs.parse(Map.of("filterTimeout", "1m30s")).filterTimeout());
    assertEquals(java.time.Duration.ZERO,
        DynamicResourcesArgs.parse(Map.of("filterTimeout", "0s")).filterTimeout());
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> DynamicResourcesArgs.parse(Map.of(
            "filterTimeout", "-1s", "bindingTimeout", "0s")));
    assertTrue(e.getMessage().contains("filterTimeout: Invalid value: \"-1s\""), e.getMessage());
    assertTrue(e.getMessage().contains("bindingTimeout: Invalid value: \"0s\": must be positive"),
        e.getMessage());
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> DynamicResourcesArgs.parse(Map.of("filterTimeout", "ten")))
        .getMessage().contains("must be a duration"));
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> DynamicResourcesArgs.parse(Map.of("bogus", 1)))
        .getMessage().contains("unknown field \"bogus\""));
  }
}
