package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code resource.k8s.io/v1} API over HTTP: discovery, CRUD and watch of claims, templates, slices and classes,
 * request defaults, the validations kube-apiserver applies (immutable specs, the claim status rules), slice field
 * selectors, and the ResourceSlices simulated nodes publish for their GPUs.
 */
class DynamicResourcesApiIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO).withTerminationDelay(Duration.ZERO)));

  private static ResourceClaim claim(String name, int count) {
    return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .withNewSpec().withNewDevices().addNewRequest().withName("gpu").withNewExactly()
        .withDeviceClassName(SimulatedGpus.DEVICE_CLASS).withCount(count == 0 ? null : (long) count).endExactly()
        .endRequest().endDevices().endSpec().build();
  }

  private static void assertInvalid(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
      assertThat(e.getCode()).isEqualTo(422);
      assertThat(e.getMessage()).contains(message);
    });
  }

  @Test
  void discoveryServesTheFourKindsAndTheClaimStatusSubresource() {
    List<APIResource> resources = CLUSTER.client().getApiResources("resource.k8s.io/v1").getResources();
    assertThat(resources).extracting(APIResource::getName).contains("deviceclasses", "resourceclaims",
        "resourceclaims/status", "resourceclaimtemplates", "resourceslices");
    assertThat(resources).filteredOn(r -> r.getName().equals("resourceclaims")).singleElement()
        .satisfies(r -> assertThat(r.getNamespaced()).isTrue());
    assertThat(resources).filteredOn(r -> r.getName().equals("resourceslices")).singleElement()
        .satisfies(r -> assertThat(r.getNamespaced()).isFalse());
  }

  @Test
  void claimRequestsAreDefaultedAndTheSpecIsImmutable() {
    KubernetesClient client = CLUSTER.client();
    ResourceClaim created = client.resources(ResourceClaim.class).resource(claim("defaults", 0)).create();
    assertThat(created.getSpec().getDevices().getRequests().get(0).getExactly().getAllocationMode())
        .isEqualTo("ExactCount");
    assertThat(created.getSpec().getDevices().getRequests().get(0).getExactly().getCount()).isEqualTo(1L);
    assertThat(created.getStatus()).satisfiesAnyOf(s -> assertThat(s).isNull(),
        s -> assertThat(s.getAllocation()).isNull());
    assertInvalid(() -> client.resources(ResourceClaim.class).inNamespace("default").withName("defaults")
        .edit(c -> {
          c.getSpec().getDevices().getRequests().get(0).getExactly().setCount(2L);
          return c;
        }), "ResourceClaim \"defaults\" is invalid: spec: Invalid value");
    assertThat(client.resources(ResourceClaim.class).inNamespace("default").withName("defaults").get().getSpec()
        .getDevices().getRequests().get(0).getExactly().getCount()).isEqualTo(1L);
    client.resources(ResourceClaim.class).inNamespace("default").withName("defaults").delete();
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        client.resources(ResourceClaim.class).inNamespace("default").withName("defaults").get() == null);
  }

  @Test
  void badRequestsAreRejectedNamingTheField() {
    KubernetesClient client = CLUSTER.client();
    ResourceClaim noClass = claim("no-class", 1);
    noClass.getSpec().getDevices().getRequests().get(0).getExactly().setDeviceClassName(null);
    assertInvalid(() -> client.resources(ResourceClaim.class).resource(noClass).create(),
        "spec.devices.requests[0].exactly.deviceClassName: Required value");
    ResourceClaim neither = claim("neither", 1);
    neither.getSpec().getDevices().getRequests().get(0).setExactly(null);
    assertInvalid(() -> client.resources(ResourceClaim.class).resource(neither).create(),
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required");
    ResourceClaimTemplate template = new ResourceClaimTemplateBuilder().withNewMetadata().withName("bad-count")
        .withNamespace("default").endMetadata().withNewSpec().withNewSpec().withNewDevices().addNewRequest()
        .withName("gpu").withNewExactly().withDeviceClassName("gpu.berth.io").withAllocationMode("All")
        .withCount(2L).endExactly().endRequest().endDevices().endSpec().endSpec().build();
    assertInvalid(() -> client.resources(ResourceClaimTemplate.class).resource(template).create(),
        "spec.spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode "
            + "is 'All'");
    ResourceClaim tooLong = claim("too-long", 1);
    tooLong.getSpec().getDevices().getRequests().get(0).getExactly().setSelectors(List.of(
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder().withNewCel()
            .withExpression("true" + " && true".repeat(1280)).endCel().build()));
    assertInvalid(() -> client.resources(ResourceClaim.class).resource(tooLong).create(),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes");
    // selectors are compiled, and their worst-case cost estimated, as upstream's validateCELSelector
    ResourceClaim syntax = claim("syntax", 1);
    syntax.getSpec().getDevices().getRequests().get(0).getExactly().setSelectors(List.of(
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder().withNewCel()
            .withExpression("device.driver ==").endCel().build()));
    assertInvalid(() -> client.resources(ResourceClaim.class).resource(syntax).create(),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: \"device.driver ==\":"
            + " compilation failed: ");
    String list = "[1,2,3,4,5,6,7,8,9,10]";
    ResourceClaim tooComplex = claim("too-complex", 1);
    tooComplex.getSpec().getDevices().getRequests().get(0).getExactly().setSelectors(List.of(
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder().withNewCel()
            .withExpression(list + ".all(a, " + list + ".all(b, " + list + ".all(c, " + list + ".all(d, "
                + list + ".all(e, " + list + ".all(f, a + b + c + d + e + f > 0))))))").endCel().build()));
    assertInvalid(() -> client.resources(ResourceClaim.class).resource(tooComplex).create(),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit");
    DeviceClass costlyClass = new io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder().withNewMetadata()
        .withName("costly").endMetadata().withNewSpec().addNewSelector().withNewCel()
        .withExpression("['a', 'bb'].isSorted()").endCel().endSelector()
        .endSpec().build();
    // the strings of a list literal have no declared size: sorting them is unbounded in upstream's estimate
    assertInvalid(() -> client.resources(DeviceClass.class).resource(costlyClass).create(),
        "spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit");
    // a version attribute must be a semantic version, as the selectors' semver() reads it
    io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice badVersion =
        new io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder().withNewMetadata()
            .withName("bad-version").endMetadata().withNewSpec().withDriver("gpu.berth.io").withAllNodes(true)
            .withNewPool().withName("p").withGeneration(1L).withResourceSliceCount(1L).endPool()
            .addNewDevice().withName("gpu-0").addToAttributes("driverVersion",
                new io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder().withVersion("1.2").build())
            .endDevice().endSpec().build();
    assertInvalid(() -> client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class)
        .resource(badVersion).create(), "spec.devices[0].attributes[driverVersion].version: Invalid value: \"1.2\":"
            + " must be a string compatible with semver.org spec 2.0.0");
  }

  @Test
  void claimStatusFollowsTheAllocationAndReservationRules() {
    KubernetesClient client = CLUSTER.client();
    client.resources(ResourceClaim.class).resource(claim("status", 1)).create();
    var claims = client.resources(ResourceClaim.class).inNamespace("default").withName("status");
    ResourceClaimConsumerReference consumer = new ResourceClaimConsumerReferenceBuilder().withResource("pods")
        .withName("p").withUid(UUID.randomUUID().toString()).build();

    assertInvalid(() -> claims.editStatus(c -> {
      c.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
          .withReservedFor(consumer).build());
      return c;
    }), "status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
    assertInvalid(() -> claims.editStatus(c -> {
      c.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
          .withAllocation(allocation("GPU_0")).build());
      return c;
    }), "status.allocation.devices.results[0].device: Invalid value: \"GPU_0\"");
    assertInvalid(() -> claims.editStatus(c -> {
      c.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
          .withAllocation(allocation("gpu-0")).withReservedFor(consumers(257)).build());
      return c;
    }), "status.reservedFor: Too many: 257: must have at most 256 items");

    ResourceClaim allocated = claims.editStatus(c -> {
      c.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
          .withAllocation(allocation("gpu-0")).withReservedFor(consumers(256)).build());
      return c;
    });
    assertThat(allocated.getStatus().getAllocation().getDevices().getResults()).singleElement()
        .satisfies(r -> assertThat(r.getDevice()).isEqualTo("gpu-0"));
    assertThat(allocated.getStatus().getReservedFor()).hasSize(256);
    assertInvalid(() -> claims.editStatus(c -> {
      c.getStatus().setAllocation(allocation("gpu-1"));
      return c;
    }), "status.allocation: Invalid value");
    // A status write through the main resource is ignored, as the status subresource separates them.
    ResourceClaim viaMain = claims.edit(c -> {
      c.getStatus().setReservedFor(List.of());
      return c;
    });
    assertThat(viaMain.getStatus().getReservedFor()).hasSize(256);
    ResourceClaim released = claims.editStatus(c -> {
      c.getStatus().setReservedFor(List.of());
      c.getStatus().setAllocation(null);
      return c;
    });
    assertThat(released.getStatus().getAllocation()).isNull();
  }

  private static io.fabric8.kubernetes.api.model.resource.v1.AllocationResult allocation(String device) {
    return new AllocationResultBuilder().withNewDevices().withResults(new DeviceRequestAllocationResultBuilder()
        .withRequest("gpu").withDriver(SimulatedGpus.DRIVER).withPool("node-a").withDevice(device).build())
        .endDevices().build();
  }

  private static List<ResourceClaimConsumerReference> consumers(int n) {
    List<ResourceClaimConsumerReference> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new ResourceClaimConsumerReferenceBuilder().withResource("pods").withName("p-" + i)
          .withUid(UUID.randomUUID().toString()).build());
    }
    return out;
  }

  @Test
  void nodesAddedInBulkPublishTheirGpuSlicesToo() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().addAll(List.of(NodeSpec.node("bulk-gpu-a").withGpus(GpuSpec.of(2).withModel("a100")),
        NodeSpec.node("bulk-cpu-only"), NodeSpec.node("bulk-gpu-b").withGpus(3)));

    assertThat(client.resources(ResourceSlice.class).withField("spec.nodeName", "bulk-gpu-a").list().getItems())
        .singleElement().satisfies(slice -> assertThat(slice.getSpec().getDevices()).hasSize(2));
    assertThat(client.resources(ResourceSlice.class).withField("spec.nodeName", "bulk-gpu-b").list().getItems())
        .singleElement().satisfies(slice -> assertThat(slice.getSpec().getDevices()).hasSize(3));
    assertThat(client.resources(ResourceSlice.class).withField("spec.nodeName", "bulk-cpu-only").list().getItems())
        .isEmpty();
    assertThat(client.resources(DeviceClass.class).withName("gpu.berth.io").get()).isNotNull();
  }

  @Test
  void simulatedNodesPublishGpuSlicesSelectableByNodeAndDriverAndWithdrawThemWhenRemoved() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("gpu-a").withGpus(GpuSpec.of(4).withModel("h100")));
    CLUSTER.cluster().nodes().add(NodeSpec.node("gpu-b").withGpus(2));
    CLUSTER.cluster().nodes().add(NodeSpec.node("cpu-only"));

    List<ResourceSlice> onA = client.resources(ResourceSlice.class).withField("spec.nodeName", "gpu-a").list()
        .getItems();
    assertThat(onA).singleElement().satisfies(slice -> {
      assertThat(slice.getSpec().getDriver()).isEqualTo("gpu.berth.io");
      assertThat(slice.getSpec().getPool().getName()).isEqualTo("gpu-a");
      assertThat(slice.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
      assertThat(slice.getSpec().getDevices()).hasSize(4);
      var device = slice.getSpec().getDevices().get(3);
      assertThat(device.getName()).isEqualTo("gpu-3");
      assertThat(device.getAttributes().get("model").getString()).isEqualTo("h100");
      assertThat(device.getAttributes().get("index").getInt()).isEqualTo(3L);
      assertThat(device.getCapacity().get("memory").getValue().toString()).isEqualTo("80Gi");
      assertThat(slice.getMetadata().getOwnerReferences()).singleElement()
          .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
    });
    assertThat(client.resources(ResourceSlice.class).withField("spec.driver", "gpu.berth.io").list().getItems())
        .extracting(s -> s.getSpec().getNodeName()).containsExactlyInAnyOrder("gpu-a", "gpu-b");
    assertThat(client.resources(ResourceSlice.class).withField("spec.nodeName", "cpu-only").list().getItems())
        .isEmpty();
    assertThatThrownBy(() -> client.resources(ResourceSlice.class).withField("spec.pool.name", "gpu-a").list())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(400);
          assertThat(e.getMessage()).contains("field label not supported: spec.pool.name");
        });
    DeviceClass gpuClass = client.resources(DeviceClass.class).withName("gpu.berth.io").get();
    assertThat(gpuClass.getSpec().getSelectors()).singleElement()
        .satisfies(s -> assertThat(s.getCel().getExpression()).isEqualTo("device.driver == \"gpu.berth.io\""));

    CLUSTER.cluster().nodes().publishGpus("gpu-b", GpuSpec.of(3));
    ResourceSlice republished = client.resources(ResourceSlice.class).withName("gpu-b-gpu.berth.io").get();
    assertThat(republished.getSpec().getDevices()).hasSize(3);
    assertThat(republished.getSpec().getPool().getGeneration()).isEqualTo(2L);

    CLUSTER.cluster().nodes().remove("gpu-a");
    assertThat(client.resources(ResourceSlice.class).withField("spec.nodeName", "gpu-a").list().getItems())
        .isEmpty();
    assertThat(client.resources(ResourceSlice.class).withName("gpu-b-gpu.berth.io").get()).isNotNull();
    CLUSTER.cluster().nodes().remove("gpu-b");
    CLUSTER.cluster().nodes().remove("cpu-only");
  }

  @Test
  void sliceDriverPoolAndNodeAreImmutableAndDeletingTheNodeThroughTheApiCollectsItsSlice() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("gpu-gc").withGpus(1));
    assertInvalid(() -> client.resources(ResourceSlice.class).withName("gpu-gc-gpu.berth.io").edit(s -> {
      s.getSpec().setDriver("other.example.com");
      return s;
    }), "spec.driver: Invalid value: \"other.example.com\": field is immutable");
    client.nodes().withName("gpu-gc").delete();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() ->
        client.resources(ResourceSlice.class).withName("gpu-gc-gpu.berth.io").get() == null);
  }

  @Test
  void claimsCanBeWatched() throws Exception {
    KubernetesClient client = CLUSTER.client();
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Watch watch = client.resources(ResourceClaim.class).inNamespace("default").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, ResourceClaim claim) {
        seen.add(action + " " + claim.getMetadata().getName());
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      client.resources(ResourceClaim.class).resource(claim("watched", 1)).create();
      client.resources(ResourceClaim.class).inNamespace("default").withName("watched").delete();
      Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
          assertThat(seen).contains("ADDED watched", "DELETED watched"));
    }
  }
}
