package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DynamicResources end to end against the embedded API server: DeviceClass, ResourceSlices and
 * ResourceClaims created over HTTP, Berth's default profile allocating devices, the claims'
 * {@code status.allocation} and {@code reservedFor} read back through the API.
 */
class DynamicResourcesIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String DRIVER = "gpu.example.com";

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  @BeforeEach
  void start() throws Exception {
    cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(20)).withTerminationDelay(Duration.ofMillis(20)))
        .start();
    client = cluster.client();
    cluster.nodes().add(NodeSpec.node("n1").withCpu("8"));
    cluster.nodes().add(NodeSpec.node("n2").withCpu("8"));
    client.resources(io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class)
        .resource(new DeviceClassBuilder().withNewMetadata().withName("gpu").endMetadata()
            .withNewSpec().addNewSelector().withNewCel()
            .withExpression("device.driver == '" + DRIVER + "'").endCel().endSelector()
            .endSpec().build()).create();
    slice("n1", "a100", "1.8.2", 2);
    slice("n2", "h100", "2.1.0", 2);
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  private void slice(String node, String model, String driverVersion, int count) {
    Device[] devices = new Device[count];
    for (int i = 0; i < count; i++) {
      devices[i] = new DeviceBuilder().withName("gpu-" + i)
          .withAttributes(Map.of("model", new DeviceAttributeBuilder().withString(model).build(),
              "driverVersion", new DeviceAttributeBuilder().withVersion(driverVersion).build()))
          .withCapacity(Map.of("memory",
              new DeviceCapacityBuilder().withValue(new Quantity("80Gi")).build()))
          .build();
    }
    client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class)
        .resource(new ResourceSliceBuilder().withNewMetadata().withName(node + "-gpus")
            .endMetadata().withNewSpec().withDriver(DRIVER).withNodeName(node).withNewPool()
            .withName(node).withGeneration(1L).withResourceSliceCount(1L).endPool()
            .withDevices(devices).endSpec().build()).create();
  }

  private void claim(String name, int count, String model) {
    claimSelecting(name, count, "device.attributes['" + DRIVER + "'].model == '" + model + "'");
  }

  private void claimSelecting(String name, int count, String expression) {
    client.resources(ResourceClaim.class).inNamespace("default").resource(
        new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace("default")
            .endMetadata().withNewSpec().withNewDevices().addNewRequest().withName("gpus")
            .withNewExactly().withDeviceClassName("gpu").withCount((long) count)
            .addNewSelector().withNewCel().withExpression(expression)
            .endCel().endSelector().endExactly().endRequest().endDevices().endSpec().build())
        .create();
  }

  private ResourceClaim getClaim(String name) {
    return client.resources(ResourceClaim.class).inNamespace("default").withName(name).get();
  }

  private void pod(String name, String claim) {
    Pod pod = new PodBuilder(SchedulerIT.pod(name, "100m", "default-scheduler")).editSpec()
        .addNewResourceClaim().withName("gpus").withResourceClaimName(claim).endResourceClaim()
        .endSpec().build();
    client.pods().inNamespace("default").resource(pod).create();
  }

  private String nodeOf(String pod) {
    Pod p = client.pods().inNamespace("default").withName(pod).get();
    return p == null ? null : p.getSpec().getNodeName();
  }

  private boolean failedSchedulingSays(String pod, String text) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .anyMatch(e -> "FailedScheduling".equals(e.getReason())
            && pod.equals(e.getInvolvedObject().getName()) && e.getMessage().contains(text));
  }

  @Test
  void allocatesDevicesOfTheModelSharesTheClaimAndMakesOthersWait() throws Exception {
    scheduler = new InProcessScheduler(client, null);
    claim("two-a100", 2, "a100");
    pod("first", "two-a100");
    await().atMost(WAIT).until(() -> "n1".equals(nodeOf("first")));
    ResourceClaim claim = getClaim("two-a100");
    List<DeviceRequestAllocationResult> results =
        claim.getStatus().getAllocation().getDevices().getResults();
    assertThat(results).extracting(DeviceRequestAllocationResult::getDevice)
        .containsExactlyInAnyOrder("gpu-0", "gpu-1");
    assertThat(results).extracting(DeviceRequestAllocationResult::getPool).containsOnly("n1");
    assertThat(claim.getStatus().getAllocation().getNodeSelector().getNodeSelectorTerms().get(0)
        .getMatchFields().get(0).getValues()).containsExactly("n1");
    assertThat(claim.getStatus().getReservedFor()).extracting(r -> r.getName())
        .containsExactly("first");
    assertThat(claim.getMetadata().getFinalizers())
        .contains("resource.kubernetes.io/delete-protection");

    // a second pod sharing the claim joins reservedFor on the same node
    pod("second", "two-a100");
    await().atMost(WAIT).until(() -> "n1".equals(nodeOf("second")));
    assertThat(getClaim("two-a100").getStatus().getReservedFor()).extracting(r -> r.getName())
        .containsExactlyInAnyOrder("first", "second");

    // no a100 is left: a third claim waits with the reason
    claim("one-a100", 1, "a100");
    pod("third", "one-a100");
    await().atMost(WAIT).until(() -> failedSchedulingSays("third",
        "cannot allocate all claims"));
    assertThat(nodeOf("third")).isNull();

    // freeing the devices (what the resourceclaim controller does once the pods are gone)
    // queues the waiting pod through the claim's deallocation event
    client.pods().inNamespace("default").withName("first").withGracePeriod(0).delete();
    client.pods().inNamespace("default").withName("second").withGracePeriod(0).delete();
    ResourceClaim freed = new ResourceClaimBuilder(getClaim("two-a100")).editStatus()
        .withReservedFor((List<io.fabric8.kubernetes.api.model.resource.v1
            .ResourceClaimConsumerReference>) null).withAllocation(null).endStatus().build();
    client.resources(ResourceClaim.class).inNamespace("default").resource(freed).updateStatus();
    assertThat(getClaim("two-a100").getStatus().getAllocation()).isNull();
    await().atMost(WAIT).until(() -> "n1".equals(nodeOf("third")));
  }

  @Test
  void aSelectorOverTheCostLimitIsReportedOnItsPodAndOthersStillSchedule() throws Exception {
    scheduler = new InProcessScheduler(client, null);
    // a worst-case estimate of 16,555,551 units: the API server refuses it, as upstream's
    String tooComplex = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b,"
        + " [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d,"
        + " [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f"
        + " > 0))))))";
    assertThatThrownBy(() -> claimSelecting("too-complex", 1, tooComplex))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.devices.requests[0].exactly.selectors[0].cel.expression:"
            + " Forbidden: too complex, exceeds cost limit");
    // estimated at 65,551 (isQuantity's estimate is one unit whatever its argument), but each
    // of the 10^4 calls costs 200 at runtime: past upstream's runtime limit of 10^6
    String costly = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b,"
        + " [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d,"
        + " !isQuantity('" + "x".repeat(2000) + "')))))";
    claimSelecting("costly", 1, costly);
    pod("costly", "costly");
    await().atMost(WAIT).until(() -> failedSchedulingSays("costly", "claim default/costly:"
        + " selector #0: CEL runtime error: operation cancelled: actual cost limit exceeded"));
    assertThat(failedSchedulingSays("costly", "!isQuantity('xxxx")).isTrue();
    claim("one-h100", 1, "h100");
    pod("fine", "one-h100");
    await().atMost(WAIT).until(() -> "n2".equals(nodeOf("fine")));
    assertThat(nodeOf("costly")).isNull();
  }

  @Test
  void aPodWaitsForItsClaimToExistAndForItsClass() throws Exception {
    scheduler = new InProcessScheduler(client, null);
    pod("early", "later");
    // held by PreEnqueue: never attempted
    Thread.sleep(1000);
    assertThat(nodeOf("early")).isNull();
    // a version attribute is a semver to selectors: 2.1.0 (n2) is past 1.10.0, 1.8.2 (n1) is not
    claimSelecting("later", 1,
        "device.attributes['" + DRIVER + "'].driverVersion.isGreaterThan(semver('1.10.0'))");
    await().atMost(WAIT).until(() -> "n2".equals(nodeOf("early")));
    assertThat(getClaim("later").getStatus().getAllocation().getDevices().getResults())
        .extracting(DeviceRequestAllocationResult::getPool).containsOnly("n2");
  }
}
