package io.berth.controller.podgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.controller.ControllerContext;
import io.berth.controller.KubernetesEventRecorderFactory;
import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The podgroup controller against the embedded API server over HTTP, with the CRDs from {@code deploy/crds} and
 * simulated kubelets: a scheduler-plugins PodGroup moves Pending → Scheduling → Running as its pre-bound members
 * start, with events on the group; a v1alpha2 PodGroup gets {@code PodGroupScheduled}; a malformed group gets a
 * warning and does not stop the others.
 */
class PodGroupControllerIT {

  private static final String NS = "default";
  private static final Path CRDS = Path.of("..", "deploy", "crds");

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(50))));

  private static KubernetesClient client;
  private static SharedInformerFactory informers;
  private static KubernetesEventRecorderFactory events;
  private static PodGroupController controller;

  @BeforeAll
  static void start() throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    cluster.nodes().add(NodeSpec.node("node-1").withCpu("8"));
    KubernetesClient admin = CLUSTER.client();
    for (String f : List.of("scheduling.x-k8s.io_podgroups.yaml", "scheduling.k8s.io_podgroups.yaml")) {
      CustomResourceDefinition crd = admin.apiextensions().v1().customResourceDefinitions()
          .load(CRDS.resolve(f).toFile()).item();
      admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
    client = cluster.newClient();
    informers = new SharedInformerFactory(client);
    events = new KubernetesEventRecorderFactory(client);
    controller = new PodGroupController(new ControllerContext(client, informers,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), events, SystemClock.INSTANCE));
    informers.start();
    assertThat(informers.waitForCacheSync(Duration.ofSeconds(30))).isTrue();
    controller.start(2);
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

  private static GenericKubernetesResource group(String apiVersion, String name, Map<String, Object> spec) {
    return new GenericKubernetesResourceBuilder().withApiVersion(apiVersion).withKind("PodGroup").withNewMetadata()
        .withNamespace(NS).withName(name).endMetadata().addToAdditionalProperties("spec", spec).build();
  }

  private static PodBuilder pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace(NS).withName(name).endMetadata().withNewSpec()
        .addNewContainer().withName("c").withImage("pause").endContainer().endSpec();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(String apiVersion, String name) {
    GenericKubernetesResource g = CLUSTER.client().genericKubernetesResources(apiVersion, "PodGroup")
        .inNamespace(NS).withName(name).get();
    return (Map<String, Object>) g.getAdditionalProperties().getOrDefault("status", Map.of());
  }

  private static List<String> eventReasons(String name) {
    return CLUSTER.client().v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())
            && "PodGroup".equals(e.getInvolvedObject().getKind()))
        .map(Event::getReason).toList();
  }

  @Test
  void schedulerPluginsGroupMovesPendingSchedulingRunning() {
    String v1alpha1 = "scheduling.x-k8s.io/v1alpha1";
    CLUSTER.client().genericKubernetesResources(v1alpha1, "PodGroup").inNamespace(NS)
        .resource(group(v1alpha1, "trainers", Map.of("minMember", 2))).create();
    await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(status(v1alpha1, "trainers"))
        .containsEntry("phase", "Pending"));
    for (String n : List.of("t-0", "t-1")) {
      CLUSTER.client().pods().resource(pod(n).editMetadata().addToLabels("scheduling.x-k8s.io/pod-group",
          "trainers").endMetadata().build()).create();
    }
    await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(status(v1alpha1, "trainers"))
        .containsEntry("phase", "Scheduling").containsKey("scheduleStartTime").containsEntry("scheduled", 0));
    for (String n : List.of("t-0", "t-1")) {
      CLUSTER.client().bindings().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model.BindingBuilder()
          .withNewMetadata().withName(n).endMetadata().withNewTarget().withKind("Node").withName("node-1")
          .endTarget().build()).create();
    }
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> assertThat(status(v1alpha1, "trainers"))
        .containsEntry("phase", "Running").containsEntry("scheduled", 2).containsEntry("running", 2));
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(eventReasons("trainers"))
        .contains("Pending", "Scheduling", "Running"));
    long patches = statusPatches("trainers");
    await().during(2, TimeUnit.SECONDS).atMost(5, TimeUnit.SECONDS).until(() -> statusPatches("trainers")
        == patches);
    assertThat(patches).as("a write per change of phase or counts, then none")
        .isBetween(3L, 10L);
  }

  private static long statusPatches(String name) {
    return CLUSTER.cluster().requestLog().entries(r -> "patch".equals(r.verb()) && "podgroups".equals(r.resource())
        && "status".equals(r.subresource()) && name.equals(r.name())).size();
  }

  @Test
  void workloadGroupGetsPodGroupScheduledAndABadGroupDoesNotStopIt() {
    String v1alpha2 = "scheduling.k8s.io/v1alpha2";
    var groups = CLUSTER.client().genericKubernetesResources(v1alpha2, "PodGroup").inNamespace(NS);
    groups.resource(group(v1alpha2, "broken", Map.of("schedulingPolicy", Map.of()))).create();
    groups.resource(group(v1alpha2, "web", Map.of("schedulingPolicy", Map.of("gang", Map.of("minCount", 1)))))
        .create();
    Pod p = CLUSTER.client().pods().resource(pod("web-0").editSpec().withNodeName("node-1").withNewSchedulingGroup()
        .withPodGroupName("web").endSchedulingGroup().endSpec().build()).create();
    assertThat(p.getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo("web");
    await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> conditions = (List<Map<String, Object>>) status(v1alpha2, "web").get("conditions");
      assertThat(conditions).isNotNull();
      assertThat(conditions.get(0)).containsEntry("type", "PodGroupScheduled").containsEntry("status", "True")
          .containsEntry("reason", "Scheduled");
    });
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(eventReasons("web")).contains("Scheduled");
      assertThat(eventReasons("broken")).contains("InvalidPodGroup");
    });
  }
}
