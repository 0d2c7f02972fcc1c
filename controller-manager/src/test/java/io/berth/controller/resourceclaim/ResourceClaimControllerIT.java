package io.berth.controller.resourceclaim;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.ControllerContext;
import io.berth.controller.KubernetesEventRecorderFactory;
import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The resource claim controller against the embedded API server over HTTP: claims generated from templates, the
 * pods' claim statuses, a missing template reported on the pod and recovered from, reservations of deleted pods
 * dropped with the scheduler's allocation, generated claims of finished pods deleted.
 */
class ResourceClaimControllerIT {

  private static final String NS = "default";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO).withTerminationDelay(Duration.ZERO)));

  private static KubernetesClient client;
  private static SharedInformerFactory informers;
  private static KubernetesEventRecorderFactory events;
  private static ResourceClaimController controller;
  private static final PrometheusMeterRegistry METRICS = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeAll
  static void start() throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    cluster.nodes().add(NodeSpec.node("gpu-1").withGpus(4));
    client = cluster.newClient();
    informers = new SharedInformerFactory(client);
    events = new KubernetesEventRecorderFactory(client);
    controller = ResourceClaimController.create(new ControllerContext(client, informers, METRICS, events,
        SystemClock.INSTANCE));
    informers.start();
    assertThat(informers.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    controller.start(4);
    CLUSTER.client().resources(ResourceClaimTemplate.class).resource(ResourceClaimFixtures.template("two-gpus"))
        .create();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (controller != null) {
      controller.shutDown(Duration.ofSeconds(5));
    }
    informers.shutdown();
    events.close();
    client.close();
  }

  private static Pod pod(String name, String template) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata().withNewSpec()
        .addNewContainer().withName("c").withImage("registry.k8s.io/pause:3.10").endContainer()
        .withResourceClaims(new PodResourceClaimBuilder().withName("gpus").withResourceClaimTemplateName(template)
            .build()).endSpec().build();
  }

  private static ResourceClaim claimOf(Pod pod) {
    Pod current = client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).get();
    String name = current.getStatus().getResourceClaimStatuses().get(0).getResourceClaimName();
    return client.resources(ResourceClaim.class).inNamespace(NS).withName(name).get();
  }

  private static void awaitClaimStatus(String podName) {
    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(
        client.pods().inNamespace(NS).withName(podName).get().getStatus().getResourceClaimStatuses()).hasSize(1));
  }

  /** What the scheduler's PreBind writes: an allocation, the pod in reservedFor, the delete-protection finalizer. */
  private static void allocateAndReserve(ResourceClaim claim, Pod pod) {
    var claims = CLUSTER.client().resources(ResourceClaim.class).inNamespace(NS)
        .withName(claim.getMetadata().getName());
    claims.edit(c -> {
      c.getMetadata().setFinalizers(List.of(PodClaims.DELETE_PROTECTION_FINALIZER));
      return c;
    });
    claims.editStatus(c -> {
      c.setStatus(new io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder()
          .withAllocation(new AllocationResultBuilder().withNewDevices().withResults(
              new DeviceRequestAllocationResultBuilder().withRequest("gpu").withDriver("gpu.berth.io")
                  .withPool("gpu-1").withDevice("gpu-0").build()).endDevices().build())
          .withReservedFor(new ResourceClaimConsumerReferenceBuilder().withResource("pods")
              .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build())
          .build());
      return c;
    });
  }

  @Test
  void aPodGetsAClaimFromItsTemplateAndDeletingThePodReleasesAndDeletesIt() {
    Pod pod = client.pods().resource(pod("train", "two-gpus")).create();
    awaitClaimStatus("train");
    ResourceClaim claim = claimOf(pod);
    assertThat(claim.getMetadata().getName()).startsWith("train-gpus-").hasSize("train-gpus-".length() + 5);
    assertThat(claim.getMetadata().getAnnotations()).containsEntry(PodClaims.POD_CLAIM_NAME_ANNOTATION, "gpus");
    assertThat(claim.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
      assertThat(ref.getUid()).isEqualTo(pod.getMetadata().getUid());
      assertThat(ref.getController()).isTrue();
    });
    assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getCount()).isEqualTo(2L);
    allocateAndReserve(claim, pod);

    client.pods().inNamespace(NS).withName("train").delete();

    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> client.resources(ResourceClaim.class)
        .inNamespace(NS).withName(claim.getMetadata().getName()).get() == null);
    assertThat(METRICS.scrape()).contains(
        "resourceclaim_controller_creates_total{admin_access=\"false\",status=\"success\"}");
  }

  @Test
  void aUserClaimKeepsExistingButLosesTheReservationAndAllocationOfADeletedPod() {
    CLUSTER.client().resources(ResourceClaim.class).resource(new ResourceClaimBuilder().withNewMetadata()
        .withName("shared").withNamespace(NS).endMetadata().withNewSpec().withNewDevices().addNewRequest()
        .withName("gpu").withNewExactly().withDeviceClassName("gpu.berth.io").endExactly().endRequest()
        .endDevices().endSpec().build()).create();
    Pod pod = client.pods().resource(new PodBuilder(pod("user", "unused")).editSpec()
        .withResourceClaims(new PodResourceClaimBuilder().withName("gpus").withResourceClaimName("shared").build())
        .endSpec().build()).create();
    ResourceClaim shared = client.resources(ResourceClaim.class).inNamespace(NS).withName("shared").get();
    allocateAndReserve(shared, pod);

    client.pods().inNamespace(NS).withName("user").delete();

    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      ResourceClaim now = client.resources(ResourceClaim.class).inNamespace(NS).withName("shared").get();
      assertThat(now).isNotNull();
      assertThat(now.getStatus().getReservedFor()).isNullOrEmpty();
      assertThat(now.getStatus().getAllocation()).isNull();
      assertThat(now.getMetadata().getFinalizers()).isNullOrEmpty();
    });
  }

  @Test
  void aMissingTemplateIsAWarningOnThePodUntilTheTemplateAppears() {
    client.pods().resource(pod("late", "late-template")).create();
    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      List<Event> warnings = client.v1().events().inNamespace(NS).list().getItems().stream()
          .filter(e -> "FailedResourceClaimCreation".equals(e.getReason())
              && "late".equals(e.getInvolvedObject().getName())).toList();
      assertThat(warnings).isNotEmpty();
      assertThat(warnings.get(0).getType()).isEqualTo("Warning");
      assertThat(warnings.get(0).getMessage()).startsWith("PodResourceClaim gpus: resource claim template "
          + "\"late-template\"");
      assertThat(warnings.get(0).getSource().getComponent()).isEqualTo("resource_claim");
    });
    ResourceClaimTemplate template = ResourceClaimFixtures.template("late-template");
    CLUSTER.client().resources(ResourceClaimTemplate.class).resource(template).create();
    awaitClaimStatus("late");
    assertThat(claimOf(client.pods().inNamespace(NS).withName("late").get())).isNotNull();
  }

  @Test
  void theGeneratedClaimOfAFinishedPodIsDeletedWhileThePodStays() {
    Pod pod = client.pods().resource(pod("batch", "two-gpus")).create();
    awaitClaimStatus("batch");
    ResourceClaim claim = claimOf(pod);

    CLUSTER.client().pods().inNamespace(NS).withName("batch").editStatus(p -> {
      p.getStatus().setPhase("Succeeded");
      return p;
    });

    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> client.resources(ResourceClaim.class)
        .inNamespace(NS).withName(claim.getMetadata().getName()).get() == null);
    assertThat(client.pods().inNamespace(NS).withName("batch").get()).isNotNull();
  }
}
