package io.berth.plugins.dynamicresources.structured;

import static io.berth.plugins.dynamicresources.structured.DraObjects.DRIVER;
import static io.berth.plugins.dynamicresources.structured.DraObjects.DRIVER_B;
import static io.berth.plugins.dynamicresources.structured.DraObjects.adminRequest;
import static io.berth.plugins.dynamicresources.structured.DraObjects.allNodesSlice;
import static io.berth.plugins.dynamicresources.structured.DraObjects.allRequest;
import static io.berth.plugins.dynamicresources.structured.DraObjects.claim;
import static io.berth.plugins.dynamicresources.structured.DraObjects.device;
import static io.berth.plugins.dynamicresources.structured.DraObjects.deviceClass;
import static io.berth.plugins.dynamicresources.structured.DraObjects.firstAvailable;
import static io.berth.plugins.dynamicresources.structured.DraObjects.labelSelector;
import static io.berth.plugins.dynamicresources.structured.DraObjects.matchAttribute;
import static io.berth.plugins.dynamicresources.structured.DraObjects.request;
import static io.berth.plugins.dynamicresources.structured.DraObjects.selectorSlice;
import static io.berth.plugins.dynamicresources.structured.DraObjects.slice;
import static io.berth.plugins.dynamicresources.structured.DraObjects.sub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaimConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's allocator test table ({@code structured/internal/allocatortesting}), translated:
 * each case gives claims, classes, slices, devices already allocated and a node, and expects the
 * allocation (per claim, {@code request=driver/pool/device}, then {@code @node} for a node-local
 * result, {@code @*} for one usable anywhere, {@code @key=value} for a slice's selector), no
 * allocation ({@code unsatisfiable}) or an error containing a text ({@code error: ...}).
 */
class AllocatorTest {
  private static final String NODE = "node-1";
  private static final String CLASS_A = "class-a";
  private static final String CLASS_B = "class-b";

  record Case(String name, List<ResourceClaim> claims, List<DeviceClass> classes,
      List<ResourceSlice> slices, Set<DeviceId> allocated, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case c(String name, List<ResourceClaim> claims, List<DeviceClass> classes,
      List<ResourceSlice> slices, String expected) {
    return new Case(name, claims, classes, slices, Set.of(), expected);
  }

  private static Case c(String name, List<ResourceClaim> claims, List<DeviceClass> classes,
      List<ResourceSlice> slices, Set<DeviceId> allocated, String expected) {
    return new Case(name, claims, classes, slices, allocated, expected);
  }

  private static DeviceId id(String device) {
    return new DeviceId(DRIVER, "pool-1", device);
  }

  private static ResourceSlice local(Device... devices) {
    return slice("slice-1", NODE, "pool-1", DRIVER, devices);
  }

  private static Device sized(String name, String memory) {
    return device(name, Map.of(), Map.of("memory", memory));
  }

  private static Device attr(String name, String key, Object value) {
    return device(name, Map.of(key, value), Map.of());
  }

  static Stream<Case> cases() {
    DeviceClass a = deviceClass(CLASS_A);
    DeviceClass b = deviceClass(CLASS_B);
    List<DeviceClass> classes = List.of(a, b);
    String small = "device.capacity['driver-a'].memory.compareTo(quantity('1Gi')) <= 0";
    String large = "device.capacity['driver-a'].memory.compareTo(quantity('2Gi')) >= 0";
    return Stream.of(
        c("empty", List.of(), classes, List.of(local(device("d1"))), ""),
        c("simple", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(local(device("d1"))), "req-0=driver-a/pool-1/d1@node-1"),
        c("other-node", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(slice("s", "node-2", "pool-1", DRIVER, device("d1"))), "unsatisfiable"),
        c("no-slices", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(), "unsatisfiable"),
        c("no-classes", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), List.of(),
            List.of(local(device("d1"))),
            "error: claim default/claim-0, request req-0: could not retrieve device class class-a"),
        c("count-two", List.of(claim("claim-0", request("req-0", CLASS_A, 2))), classes,
            List.of(local(device("d1"), device("d2"), device("d3"))),
            "req-0=driver-a/pool-1/d1,req-0=driver-a/pool-1/d2@node-1"),
        c("not-enough-suitable-devices",
            List.of(claim("claim-0", request("req-0", CLASS_A, 2))), classes,
            List.of(local(device("d1"))), "unsatisfiable"),
        c("already-allocated-devices",
            List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(local(device("d1"), device("d2"))), Set.of(id("d1")),
            "req-0=driver-a/pool-1/d2@node-1"),
        c("all-allocated", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(local(device("d1"))), Set.of(id("d1")), "unsatisfiable"),
        c("two-claims-share-nothing", List.of(claim("claim-0", request("req-0", CLASS_A, 1)),
                claim("claim-1", request("req-0", CLASS_A, 1))), classes,
            List.of(local(device("d1"), device("d2"))),
            "req-0=driver-a/pool-1/d1@node-1; req-0=driver-a/pool-1/d2@node-1"),
        c("two-claims-one-device", List.of(claim("claim-0", request("req-0", CLASS_A, 1)),
                claim("claim-1", request("req-0", CLASS_A, 1))), classes,
            List.of(local(device("d1"))), "unsatisfiable"),
        c("small-and-large", List.of(claim("claim-0", request("small", CLASS_A, 1, small),
                request("large", CLASS_A, 1, large))), classes,
            List.of(local(sized("d-small", "1Gi"), sized("d-large", "2Gi"))),
            "small=driver-a/pool-1/d-small,large=driver-a/pool-1/d-large@node-1"),
        c("small-and-large-backtrack-requests", List.of(claim("claim-0",
                request("any", CLASS_A, 1), request("large", CLASS_A, 1, large))), classes,
            List.of(local(sized("d-large", "2Gi"), sized("d-small", "1Gi"))),
            "any=driver-a/pool-1/d-small,large=driver-a/pool-1/d-large@node-1"),
        c("small-and-large-backtrack-claims", List.of(
                claim("claim-0", request("any", CLASS_A, 1)),
                claim("claim-1", request("large", CLASS_A, 1, large))), classes,
            List.of(local(sized("d-large", "2Gi"), sized("d-small", "1Gi"))),
            "any=driver-a/pool-1/d-small@node-1; large=driver-a/pool-1/d-large@node-1"),
        c("class-selector", List.of(claim("claim-0", request("req-0", "gpu", 1))),
            List.of(deviceClass("gpu", "device.attributes['driver-a'].model == 'h100'")),
            List.of(local(attr("d1", "model", "a100"), attr("d2", "model", "h100"))),
            "req-0=driver-a/pool-1/d2@node-1"),
        c("selector-on-driver", List.of(claim("claim-0",
                request("req-0", CLASS_A, 1, "device.driver == 'driver-b'"))), classes,
            List.of(local(device("d1")), slice("s-b", NODE, "pool-b", DRIVER_B, device("e1"))),
            "req-0=driver-b/pool-b/e1@node-1"),
        c("devices-split-across-slices", List.of(claim("claim-0",
                request("req-0", CLASS_A, 2))), classes,
            List.of(slice("s1", "pool-1", DRIVER, 1, 2, new Device[] {device("d1")},
                    x -> x.withNodeName(NODE)),
                slice("s2", "pool-1", DRIVER, 1, 2, new Device[] {device("d2")},
                    x -> x.withNodeName(NODE))),
            "req-0=driver-a/pool-1/d1,req-0=driver-a/pool-1/d2@node-1"),
        c("obsolete-slice", List.of(claim("claim-0", request("req-0", CLASS_A, 1))), classes,
            List.of(slice("old", "pool-1", DRIVER, 1, 1, new Device[] {device("old-d")},
                    x -> x.withNodeName(NODE)),
                slice("new", "pool-1", DRIVER, 2, 1, new Device[] {device("new-d")},
                    x -> x.withNodeName(NODE))),
            "req-0=driver-a/pool-1/new-d@node-1"),
        c("duplicate-device-name", List.of(claim("claim-0", request("req-0", CLASS_A, 1))),
            classes, List.of(local(device("d1"), device("d1"))),
            "error: pool driver-a/pool-1 is invalid: duplicate device name d1"),
        c("all-devices-single", List.of(claim("claim-0", allRequest("req-0", CLASS_A))),
            classes, List.of(local(device("d1"))), "req-0=driver-a/pool-1/d1@node-1"),
        c("all-devices-many", List.of(claim("claim-0", allRequest("req-0", CLASS_A))),
            classes, List.of(local(device("d1"), device("d2"), device("d3"))),
            "req-0=driver-a/pool-1/d1,req-0=driver-a/pool-1/d2,req-0=driver-a/pool-1/d3@node-1"),
        c("all-devices-of-a-model", List.of(claim("claim-0", allRequest("req-0", CLASS_A,
                "device.attributes['driver-a'].model == 'a'"))), classes,
            List.of(local(attr("d1", "model", "a"), attr("d2", "model", "b"),
                attr("d3", "model", "a"))),
            "req-0=driver-a/pool-1/d1,req-0=driver-a/pool-1/d3@node-1"),
        c("all-devices-some-allocated", List.of(claim("claim-0", allRequest("req-0", CLASS_A))),
            classes, List.of(local(device("d1"), device("d2"))), Set.of(id("d1")),
            "unsatisfiable"),
        c("all-devices-some-allocated-admin-access",
            List.of(claim("claim-0", adminRequest(allRequest("req-0", CLASS_A)))), classes,
            List.of(local(device("d1"), device("d2"))), Set.of(id("d1")),
            "req-0=driver-a/pool-1/d1[admin],req-0=driver-a/pool-1/d2[admin]@node-1"),
        c("all-devices-none-on-node", List.of(claim("claim-0", allRequest("req-0", CLASS_A))),
            classes, List.of(slice("s", "node-2", "pool-1", DRIVER, device("d1"))),
            "unsatisfiable"),
        c("all-devices-incomplete-pool", List.of(claim("claim-0",
                allRequest("req-0", CLASS_A))), classes,
            List.of(slice("s1", "pool-1", DRIVER, 1, 2, new Device[] {device("d1")},
                x -> x.withNodeName(NODE))),
            "error: claim default/claim-0, request req-0: asks for all devices, but resource"
                + " pool driver-a/pool-1 is currently being updated"),
        c("admin-access-takes-allocated-device",
            List.of(claim("claim-0", adminRequest(request("req-0", CLASS_A, 1)))), classes,
            List.of(local(device("d1"))), Set.of(id("d1")),
            "req-0=driver-a/pool-1/d1[admin]@node-1"),
        c("with-constraint", List.of(claim("claim-0", List.of(request("req-0", CLASS_A, 1),
                request("req-1", CLASS_A, 1)), matchAttribute("driver-a/numa"))), classes,
            List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L),
                attr("d3", "numa", 0L))),
            "req-0=driver-a/pool-1/d1,req-1=driver-a/pool-1/d3@node-1"),
        c("with-constraint-backtracks", List.of(claim("claim-0", List.of(
                request("req-0", CLASS_A, 1), request("req-1", CLASS_A, 2)),
                matchAttribute("driver-a/numa"))), classes,
            List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L),
                attr("d3", "numa", 1L), attr("d4", "numa", 1L))),
            "req-0=driver-a/pool-1/d2,req-1=driver-a/pool-1/d3,req-1=driver-a/pool-1/d4@node-1"),
        c("with-constraint-not-satisfied", List.of(claim("claim-0", List.of(
                request("req-0", CLASS_A, 1), request("req-1", CLASS_A, 1)),
                matchAttribute("driver-a/numa"))), classes,
            List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L))), "unsatisfiable"),
        c("with-constraint-non-existent-attribute", List.of(claim("claim-0",
                List.of(request("req-0", CLASS_A, 1)), matchAttribute("driver-a/nosuch"))),
            classes, List.of(local(device("d1"))), "unsatisfiable"),
        c("with-constraint-on-some-requests", List.of(claim("claim-0", List.of(
                request("req-0", CLASS_A, 1), request("req-1", CLASS_A, 1),
                request("free", CLASS_A, 1)), matchAttribute("driver-a/numa", "req-0", "req-1"))),
            classes, List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L),
                attr("d3", "numa", 1L), device("d4"))),
            "req-0=driver-a/pool-1/d2,req-1=driver-a/pool-1/d3,free=driver-a/pool-1/d1@node-1"),
        c("network-attached-device", List.of(claim("claim-0", request("req-0", CLASS_A, 1))),
            classes, List.of(allNodesSlice("net", "pool-1", DRIVER, device("d1"))),
            "req-0=driver-a/pool-1/d1@*"),
        c("node-selector-slice", List.of(claim("claim-0", request("req-0", CLASS_A, 1))),
            classes, List.of(selectorSlice("sel", "pool-1", DRIVER,
                labelSelector("zone", "z1"), device("d1"))),
            "req-0=driver-a/pool-1/d1@zone=z1"),
        c("node-selector-slice-no-match", List.of(claim("claim-0",
                request("req-0", CLASS_A, 1))), classes,
            List.of(selectorSlice("sel", "pool-1", DRIVER, labelSelector("zone", "z2"),
                device("d1"))), "unsatisfiable"),
        c("too-many-devices-single-request",
            List.of(claim("claim-0", request("req-0", CLASS_A, 33))), classes,
            List.of(local(device("d1"))),
            "error: claim default/claim-0: number of requested devices 33 exceeds the claim"
                + " limit of 32"),
        c("prioritized-list-first", List.of(claim("claim-0", firstAvailable("req-0",
                sub("sub-0", CLASS_A, 1), sub("sub-1", CLASS_B, 1)))), classes,
            List.of(local(device("d1"))), "req-0/sub-0=driver-a/pool-1/d1@node-1"),
        c("prioritized-list-first-unavailable", List.of(claim("claim-0", firstAvailable("req-0",
                sub("sub-0", CLASS_A, 2), sub("sub-1", CLASS_A, 1)))), classes,
            List.of(local(device("d1"))), "req-0/sub-1=driver-a/pool-1/d1@node-1"),
        c("prioritized-list-selector", List.of(claim("claim-0", firstAvailable("req-0",
                sub("big", CLASS_A, 1, large), sub("small", CLASS_A, 1, small)))), classes,
            List.of(local(sized("d-small", "1Gi"))), "req-0/small=driver-a/pool-1/d-small@node-1"),
        c("prioritized-list-none", List.of(claim("claim-0", firstAvailable("req-0",
                sub("sub-0", CLASS_A, 2), sub("sub-1", CLASS_A, 3)))), classes,
            List.of(local(device("d1"))), "unsatisfiable"),
        c("prioritized-list-constraint-on-subrequest", List.of(claim("claim-0", List.of(
                request("req-0", CLASS_A, 1), firstAvailable("req-1",
                    sub("sub-0", CLASS_A, 1), sub("sub-1", CLASS_A, 1))),
                matchAttribute("driver-a/numa", "req-0", "req-1/sub-1"))), classes,
            List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L))),
            "req-0=driver-a/pool-1/d1,req-1/sub-0=driver-a/pool-1/d2@node-1"),
        c("prioritized-list-constraint-on-parent", List.of(claim("claim-0", List.of(
                request("req-0", CLASS_A, 1), firstAvailable("req-1",
                    sub("sub-0", CLASS_A, 1), sub("sub-1", CLASS_A, 1))),
                matchAttribute("driver-a/numa", "req-0", "req-1"))), classes,
            List.of(local(attr("d1", "numa", 0L), attr("d2", "numa", 1L))), "unsatisfiable"),
        c("invalid-CEL-in-class", List.of(claim("claim-0", request("req-0", "bad", 1))),
            List.of(deviceClass("bad", "device.attributes[")),
            List.of(local(device("d1"))), "error: class bad: selector #0: CEL compile error: "),
        c("CEL-runtime-error-in-claim", List.of(claim("claim-0", request("req-0", CLASS_A, 1,
                "device.attributes['driver-a'].nosuch == 'x'"))), classes,
            List.of(local(device("d1"))),
            "error: claim default/claim-0: selector #0: CEL runtime error: "),
        c("unknown-allocation-mode", List.of(claim("claim-0",
                new io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder(
                    request("req-0", CLASS_A, 1)).editExactly().withAllocationMode("Some")
                    .endExactly().build())), classes, List.of(local(device("d1"))),
            "error: claim default/claim-0, request req-0: unsupported count mode Some"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void allocates(Case tc) {
    check(tc, new Pools(tc.slices()), new DeviceSelectors());
  }

  // the same table through the plugin's path: pools from a cache, asked twice (the second time
  // the pools are reused and every device's selector outcomes are memoized)
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void allocatesAlikeThroughTheCache(Case tc) {
    PoolsCache cache = new PoolsCache();
    DeviceSelectors cel = new DeviceSelectors();
    check(tc, cache.pools(tc.slices()), cel);
    check(tc, cache.pools(tc.slices()), cel);
  }

  private static void check(Case tc, Pools pools, DeviceSelectors cel) {
    Node node = new NodeBuilder().withNewMetadata().withName(NODE)
        .withLabels(Map.of("zone", "z1")).endMetadata().build();
    Allocator allocator = new Allocator(tc.claims(), tc.allocated(),
        name -> tc.classes().stream().filter(k -> k.getMetadata().getName().equals(name))
            .findFirst(), pools, cel);
    String actual;
    try {
      actual = allocator.allocate(node).map(AllocatorTest::format).orElse("unsatisfiable");
    } catch (AllocationException e) {
      actual = "error: " + e.getMessage();
    }
    if (tc.expected().startsWith("error: ")) {
      String a = actual;
      assertTrue(actual.startsWith(tc.expected()), () -> "got " + a);
    } else {
      assertEquals(tc.expected(), actual);
    }
  }

  static String format(List<AllocationResult> results) {
    List<String> claims = new ArrayList<>();
    for (AllocationResult r : results) {
      String devices = r.getDevices().getResults().stream().map(AllocatorTest::format)
          .collect(Collectors.joining(","));
      claims.add(devices + "@" + where(r));
    }
    return String.join("; ", claims);
  }

  private static String format(DeviceRequestAllocationResult d) {
    return d.getRequest() + "=" + d.getDriver() + "/" + d.getPool() + "/" + d.getDevice()
        + (Boolean.TRUE.equals(d.getAdminAccess()) ? "[admin]" : "");
  }

  private static String where(AllocationResult r) {
    if (r.getNodeSelector() == null) {
      return "*";
    }
    var term = r.getNodeSelector().getNodeSelectorTerms().get(0);
    if (term.getMatchFields() != null && !term.getMatchFields().isEmpty()) {
      return String.join(",", term.getMatchFields().get(0).getValues());
    }
    return term.getMatchExpressions().stream()
        .map(e -> e.getKey() + "=" + String.join(",", e.getValues()))
        .collect(Collectors.joining(","));
  }

  @Test
  void classAndClaimConfigAreCopiedIntoTheResult() throws Exception {
    DeviceClass cls = new DeviceClassBuilder(deviceClass(CLASS_A)).editSpec().addNewConfig()
        .withNewOpaque().withDriver(DRIVER).withParameters(Map.of("class", true)).endOpaque()
        .endConfig().endSpec().build();
    ResourceClaim claim = new ResourceClaimBuilder(claim("claim-0",
        request("req-0", CLASS_A, 1))).editSpec().editDevices().withConfig(
            new DeviceClaimConfigurationBuilder().withRequests("req-0").withNewOpaque()
                .withDriver(DRIVER).withParameters(Map.of("claim", true)).endOpaque().build())
        .endDevices().endSpec().build();
    Node node = new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build();
    AllocationResult r = new Allocator(List.of(claim), Set.of(), n -> Optional.of(cls),
        List.of(local(device("d1"))), new DeviceSelectors()).allocate(node).orElseThrow().get(0);
    assertEquals(List.of(Allocator.SOURCE_CLASS, Allocator.SOURCE_CLAIM),
        r.getDevices().getConfig().stream().map(x -> x.getSource()).toList());
    assertEquals(List.of("req-0"), r.getDevices().getConfig().get(0).getRequests());
  }

  @Test
  void findBuildsTheResultsOnlyWhenAskedAndAsAllocateDoes() throws Exception {
    ResourceClaim claim = claim("claim-0", request("req-0", CLASS_A, 2));
    Node node = new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build();
    Allocator allocator = new Allocator(List.of(claim), Set.of(),
        n -> Optional.of(deviceClass(CLASS_A)), List.of(local(device("d1"), device("d2"),
            device("d3"))), new DeviceSelectors());
    Allocator.Allocation found = allocator.find(node, () -> false, Set.of()).orElseThrow();
    assertEquals(format(allocator.allocate(node).orElseThrow()), format(found.results()));
    assertSame(found.results(), found.results());
    assertEquals("req-0=driver-a/pool-1/d1,req-0=driver-a/pool-1/d2@node-1",
        format(found.results()));
  }

  @Test
  void aSliceSelectorOfTwoTermsFailsTheNodeInFind() {
    NodeSelector twoTerms = new NodeSelectorBuilder().addNewNodeSelectorTerm()
        .addNewMatchExpression().withKey("zone").withOperator("In").withValues("z1")
        .endMatchExpression().endNodeSelectorTerm().addNewNodeSelectorTerm()
        .addNewMatchExpression().withKey("zone").withOperator("In").withValues("z2")
        .endMatchExpression().endNodeSelectorTerm().build();
    Node node = new NodeBuilder().withNewMetadata().withName(NODE)
        .withLabels(Map.of("zone", "z1")).endMetadata().build();
    Allocator allocator = new Allocator(List.of(claim("claim-0", request("req-0", CLASS_A, 1))),
        Set.of(), n -> Optional.of(deviceClass(CLASS_A)),
        List.of(selectorSlice("s", "pool-1", DRIVER, twoTerms, device("d1"))),
        new DeviceSelectors());
    AllocationException e = assertThrows(AllocationException.class,
        () -> allocator.find(node, () -> false, Set.of()));
    assertEquals("unsupported ResourceSlice.NodeSelector with 2 terms", e.getMessage());
  }

  @Test
  void deadlineStopsTheSearch() {
    Device[] many = new Device[200];
    for (int i = 0; i < many.length; i++) {
      many[i] = attr("d" + i, "numa", (long) i);
    }
    // 3 devices with one NUMA value each can never match: the search tries many combinations
    ResourceClaim claim = claim("claim-0", List.of(request("req-0", CLASS_A, 3)),
        matchAttribute("driver-a/numa"));
    Node node = new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build();
    Allocator allocator = new Allocator(List.of(claim), Set.of(),
        n -> Optional.of(deviceClass(CLASS_A)), List.of(local(many)), new DeviceSelectors());
    assertThrows(Allocator.TimeoutException.class, () -> allocator.allocate(node, () -> true));
  }
}
