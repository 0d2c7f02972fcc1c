package io.berth.plugins.dynamicresources.structured;

import static io.berth.plugins.dynamicresources.structured.DraObjects.DRIVER;
import static io.berth.plugins.dynamicresources.structured.DraObjects.claim;
import static io.berth.plugins.dynamicresources.structured.DraObjects.deviceClass;
import static io.berth.plugins.dynamicresources.structured.DraObjects.request;
import static io.berth.plugins.dynamicresources.structured.DraObjects.slice;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * DRAConsumableCapacity (on by default in 1.36) in the allocator, after the cases of upstream's
 * allocator tests for it: a device with {@code allowMultipleAllocations} shared by requests and
 * claims while their consumption fits its capacity, consumption rounded by the capacity's
 * {@code requestPolicy}, results with a {@code shareID} and {@code consumedCapacity}, and
 * {@code distinctAttribute} constraints.
 */
class ConsumableCapacityTest {
  private static final String NODE = "node-1";
  private static final String CLASS = "class-a";
  private static final Node N = new NodeBuilder().withNewMetadata().withName(NODE).endMetadata()
      .build();
  private static final DeviceClass CLS = deviceClass(CLASS);

  private static Device sharedDevice(String name, String memory, DeviceCapacityBuilder policy) {
    return new DeviceBuilder().withName(name).withAllowMultipleAllocations(true)
        .withCapacity(Map.of("memory", policy.withValue(new Quantity(memory)).build())).build();
  }

  private static DeviceRequest memory(String name, String amount) {
    return new DeviceRequestBuilder(request(name, CLASS, 1)).editExactly().withNewCapacity()
        .withRequests(Map.of("memory", new Quantity(amount))).endCapacity().endExactly().build();
  }

  private static Optional<List<AllocationResult>> allocate(List<ResourceClaim> claims,
      Map<String, BigDecimal> consumedByOthers, Device... devices) throws Exception {
    return new Allocator(claims, Set.of(), id -> consumedByOthers, n -> Optional.of(CLS),
        new Pools(List.of(slice("s1", NODE, "pool-1", DRIVER, devices))), new DeviceSelectors())
        .allocate(N);
  }

  private static Allocator gateOff(List<ResourceClaim> claims, Device... devices) {
    return new Allocator(claims, Set.of(), id -> Map.of(), n -> Optional.of(CLS),
        new Pools(List.of(slice("s1", NODE, "pool-1", DRIVER, devices))), new DeviceSelectors(),
        false);
  }

  private static List<DeviceRequestAllocationResult> results(AllocationResult r) {
    return r.getDevices().getResults();
  }

  @Test
  void requestsOfOneClaimShareADeviceWhileTheirMemoryFits() throws Exception {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    ResourceClaim claim = claim("claim-0", memory("a", "4Gi"), memory("b", "4Gi"));
    List<DeviceRequestAllocationResult> r = results(allocate(List.of(claim), Map.of(), d)
        .orElseThrow().get(0));
    assertEquals(List.of("d1", "d1"), r.stream().map(x -> x.getDevice()).toList());
    assertNotNull(r.get(0).getShareID());
    assertNotEquals(r.get(0).getShareID(), r.get(1).getShareID());
    assertEquals(new Quantity("4Gi"), r.get(0).getConsumedCapacity().get("memory"));
    // a third request would exceed 8Gi
    ResourceClaim three = claim("claim-1", memory("a", "4Gi"), memory("b", "4Gi"),
        memory("c", "1"));
    assertTrue(allocate(List.of(three), Map.of(), d).isEmpty());
  }

  @Test
  void claimsShareADeviceBesideWhatOthersConsume() throws Exception {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    BigDecimal sixGi = Quantity.getAmountInBytes(new Quantity("6Gi"));
    assertTrue(allocate(List.of(claim("claim-0", memory("a", "2Gi"))),
        Map.of("memory", sixGi), d).isPresent());
    assertTrue(allocate(List.of(claim("claim-0", memory("a", "3Gi"))),
        Map.of("memory", sixGi), d).isEmpty());
  }

  @Test
  void aRequestWithoutCapacityTakesThePolicysDefaultOrTheWholeCapacity() throws Exception {
    Device whole = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    AllocationResult r = allocate(List.of(claim("claim-0", request("a", CLASS, 1))), Map.of(),
        whole).orElseThrow().get(0);
    assertEquals(new Quantity("8Gi"), results(r).get(0).getConsumedCapacity().get("memory"));
    Device withDefault = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder()
        .withNewRequestPolicy().withDefault(new Quantity("1Gi")).endRequestPolicy());
    r = allocate(List.of(claim("claim-0", request("a", CLASS, 1), request("b", CLASS, 1))),
        Map.of(), withDefault).orElseThrow().get(0);
    assertEquals(new Quantity("1Gi"), results(r).get(1).getConsumedCapacity().get("memory"));
  }

  @Test
  void validRangeRoundsUpToMinimumAndStepAndCapsAtMaximum() throws Exception {
    DeviceCapacityBuilder range = new DeviceCapacityBuilder().withNewRequestPolicy()
        .withNewValidRange().withMin(new Quantity("1Gi")).withStep(new Quantity("1Gi"))
        .withMax(new Quantity("4Gi")).endValidRange().endRequestPolicy();
    Device d = sharedDevice("d1", "8Gi", range);
    AllocationResult r = allocate(List.of(claim("claim-0", memory("a", "100Mi"),
        memory("b", "1500Mi"))), Map.of(), d).orElseThrow().get(0);
    assertEquals(Quantity.getAmountInBytes(new Quantity("1Gi")), Quantity.getAmountInBytes(
        results(r).get(0).getConsumedCapacity().get("memory")));
    assertEquals(Quantity.getAmountInBytes(new Quantity("2Gi")), Quantity.getAmountInBytes(
        results(r).get(1).getConsumedCapacity().get("memory")));
    // over the policy's maximum: the device does not serve the request
    assertTrue(allocate(List.of(claim("claim-0", memory("a", "5Gi"))), Map.of(), d).isEmpty());
  }

  @Test
  void validValuesRoundUpToTheNextValue() throws Exception {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder().withNewRequestPolicy()
        .withValidValues(new Quantity("1Gi"), new Quantity("4Gi")).endRequestPolicy());
    AllocationResult r = allocate(List.of(claim("claim-0", memory("a", "2Gi"))), Map.of(), d)
        .orElseThrow().get(0);
    assertEquals(new Quantity("4Gi"), results(r).get(0).getConsumedCapacity().get("memory"));
    // above every valid value: not admitted
    assertTrue(allocate(List.of(claim("claim-0", memory("a", "5Gi"))), Map.of(), d).isEmpty());
  }

  @Test
  void aCapacityTheDeviceDoesNotHaveIsUnsatisfiable() throws Exception {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    DeviceRequest r = new DeviceRequestBuilder(request("a", CLASS, 1)).editExactly()
        .withNewCapacity().withRequests(Map.of("cores", new Quantity("1"))).endCapacity()
        .endExactly().build();
    assertTrue(allocate(List.of(claim("claim-0", r)), Map.of(), d).isEmpty());
  }

  @Test
  void anExclusiveDeviceIsNotShared() throws Exception {
    Device d = new DeviceBuilder().withName("d1").withCapacity(Map.of("memory",
        new DeviceCapacityBuilder().withValue(new Quantity("8Gi")).build())).build();
    assertTrue(allocate(List.of(claim("claim-0", memory("a", "1Gi"), memory("b", "1Gi"))),
        Map.of(), d).isEmpty());
    AllocationResult r = allocate(List.of(claim("claim-0", memory("a", "1Gi"))), Map.of(), d)
        .orElseThrow().get(0);
    assertNull(results(r).get(0).getShareID());
    Map<String, Quantity> consumed = results(r).get(0).getConsumedCapacity();
    assertTrue(consumed == null || consumed.isEmpty(), () -> "consumed " + consumed);
  }

  @Test
  void distinctAttributeTakesDevicesWithDifferentValues() throws Exception {
    Device d1 = new DeviceBuilder().withName("d1").withAttributes(Map.of("numa",
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder().withInt(0L)
            .build())).build();
    Device d2 = new DeviceBuilder(d1).withName("d2").build();
    Device d3 = new DeviceBuilder().withName("d3").withAttributes(Map.of("numa",
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder().withInt(1L)
            .build())).build();
    ResourceClaim claim = claim("claim-0", List.of(request("a", CLASS, 2)),
        new DeviceConstraintBuilder().withDistinctAttribute("driver-a/numa").build());
    AllocationResult r = allocate(List.of(claim), Map.of(), d1, d2, d3).orElseThrow().get(0);
    assertEquals(List.of("d1", "d3"), results(r).stream().map(x -> x.getDevice()).toList());
    ResourceClaim three = claim("claim-1", List.of(request("a", CLASS, 3)),
        new DeviceConstraintBuilder().withDistinctAttribute("driver-a/numa").build());
    assertTrue(allocate(List.of(three), Map.of(), d1, d2, d3).isEmpty());
  }

  // upstream's allocator with DRAConsumableCapacity disabled: allowMultipleAllocations is ignored
  @Test
  void withTheGateOffASharedDeviceIsAllocatedExclusively() throws Exception {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    ResourceClaim two = claim("claim-0", request("a", CLASS, 1), request("b", CLASS, 1));
    assertTrue(gateOff(List.of(two), d).allocate(N).isEmpty());
    List<DeviceRequestAllocationResult> both = results(gateOff(List.of(two), d,
        sharedDevice("d2", "8Gi", new DeviceCapacityBuilder())).allocate(N).orElseThrow().get(0));
    assertEquals(List.of("d1", "d2"), both.stream().map(x -> x.getDevice()).toList());
    List<DeviceRequestAllocationResult> r = results(gateOff(
        List.of(claim("claim-1", request("a", CLASS, 1))), d).allocate(N).orElseThrow().get(0));
    assertEquals("d1", r.get(0).getDevice());
    assertNull(r.get(0).getShareID());
    assertTrue(r.get(0).getConsumedCapacity() == null
        || r.get(0).getConsumedCapacity().isEmpty());
  }

  @Test
  void withTheGateOffCapacityRequestsAreRefusedNamingTheRequest() {
    Device d = sharedDevice("d1", "8Gi", new DeviceCapacityBuilder());
    AllocationException e = org.junit.jupiter.api.Assertions.assertThrows(
        AllocationException.class,
        () -> gateOff(List.of(claim("claim-0", memory("a", "4Gi"))), d).allocate(N));
    assertEquals("claim default/claim-0, request a: has capacity requests, but the"
        + " DRAConsumableCapacity feature is disabled", e.getMessage());
    DeviceRequest sub = new DeviceRequestBuilder().withName("r").addNewFirstAvailable()
        .withName("s").withDeviceClassName(CLASS).withNewCapacity()
        .withRequests(Map.of("memory", new Quantity("1Gi"))).endCapacity().endFirstAvailable()
        .build();
    AllocationException f = org.junit.jupiter.api.Assertions.assertThrows(
        AllocationException.class, () -> gateOff(List.of(claim("claim-1", sub)), d).allocate(N));
    assertEquals("claim default/claim-1, subrequest s: has capacity requests, but the"
        + " DRAConsumableCapacity feature is disabled", f.getMessage());
  }
}
