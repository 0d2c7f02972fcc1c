package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kube-scheduler 1.36's Workload API ({@code scheduling.k8s.io/v1alpha2} Workload and PodGroup) from the CRDs in
 * {@code deploy/crds}, served by the embedded cluster over real HTTP beside the built-in {@code scheduling.k8s.io/v1}:
 * create and list with upstream's field names, watch, the PodGroup's status subresource with its
 * {@code PodGroupScheduled} condition, and schema validation naming the field.
 */
class WorkloadApiCrdsIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static final String V1ALPHA2 = "scheduling.k8s.io/v1alpha2";
  private static final Path CRDS = Path.of("..", "deploy", "crds");

  @BeforeAll
  static void applyCrds() {
    KubernetesClient client = CLUSTER.client();
    for (String file : List.of("scheduling.k8s.io_workloads.yaml", "scheduling.k8s.io_podgroups.yaml")) {
      CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
          .load(CRDS.resolve(file).toFile()).item();
      if (client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName()).get()
          == null) {
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
      }
    }
  }

  private static GenericKubernetesResource workload(String name, Map<String, Object> template) {
    return new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA2).withKind("Workload")
        .withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "controllerRef", Map.of("apiGroup", "batch", "kind", "Job", "name", name),
            "podGroupTemplates", List.of(template)))
        .build();
  }

  private static Map<String, Object> gangTemplate(String name, int minCount, String topologyKey) {
    return Map.of("name", name,
        "schedulingPolicy", Map.of("gang", Map.of("minCount", minCount)),
        "schedulingConstraints", Map.of("topology", List.of(Map.of("key", topologyKey))));
  }

  private static GenericKubernetesResource podGroup(String name, Map<String, Object> policy) {
    return new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA2).withKind("PodGroup")
        .withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "podGroupTemplateRef", Map.of("workload", Map.of("workloadName", "train", "podGroupTemplateName",
                "workers")),
            "schedulingPolicy", policy,
            "schedulingConstraints", Map.of("topology", List.of(Map.of("key", "topology.kubernetes.io/zone")))))
        .build();
  }

  @SuppressWarnings("unchecked")
  private static <T> T at(Object root, Object... path) {
    Object o = root;
    for (Object step : path) {
      o = step instanceof Integer i ? ((List<Object>) o).get(i) : ((Map<String, Object>) o).get(step);
    }
    return (T) o;
  }

  @Test
  void workloadRoundTripsUpstreamFieldNamesAndIsListed() {
    var workloads = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "Workload").inNamespace("default");
    GenericKubernetesResource created = workloads.resource(workload("train",
        gangTemplate("workers", 4, "topology.kubernetes.io/zone"))).create();
    Map<String, Object> spec = at(created.getAdditionalProperties(), "spec");
    assertThat((Integer) at(spec, "podGroupTemplates", 0, "schedulingPolicy", "gang", "minCount")).isEqualTo(4);
    assertThat((String) at(spec, "podGroupTemplates", 0, "schedulingConstraints", "topology", 0, "key"))
        .isEqualTo("topology.kubernetes.io/zone");
    assertThat((String) at(spec, "controllerRef", "kind")).isEqualTo("Job");
    assertThat(workloads.list().getItems()).extracting(w -> w.getMetadata().getName()).contains("train");
    workloads.withName("train").delete();
  }

  @Test
  void basicPolicySurvivesPruningAsAnEmptyObject() {
    var workloads = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "Workload").inNamespace("default");
    GenericKubernetesResource created = workloads.resource(workload("web", Map.of("name", "pods",
        "schedulingPolicy", Map.of("basic", Map.of())))).create();
    Map<String, Object> policy = at(created.getAdditionalProperties(), "spec", "podGroupTemplates", 0,
        "schedulingPolicy");
    assertThat(policy).containsOnlyKeys("basic");
    workloads.withName("web").delete();
  }

  @Test
  void schemaRejectsMinCountBelowOneAndTwoTopologyConstraintsNamingTheField() {
    var workloads = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "Workload").inNamespace("default");
    assertThatThrownBy(() -> workloads.resource(workload("zero", gangTemplate("w", 0, "rack"))).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("spec.podGroupTemplates[0].schedulingPolicy.gang.minCount");
        });
    var groups = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace("default");
    GenericKubernetesResource twoKeys = podGroup("two-keys", Map.of("gang", Map.of("minCount", 2)));
    Map<String, Object> spec = at(twoKeys.getAdditionalProperties(), "spec");
    twoKeys.getAdditionalProperties().put("spec", Map.of("schedulingPolicy", spec.get("schedulingPolicy"),
        "schedulingConstraints", Map.of("topology", List.of(Map.of("key", "a"), Map.of("key", "b")))));
    assertThatThrownBy(() -> groups.resource(twoKeys).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getMessage())
            .contains("spec.schedulingConstraints.topology"));
  }

  @Test
  void podGroupStatusSubresourceCarriesThePodGroupScheduledCondition() {
    var groups = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace("default");
    GenericKubernetesResource created = groups.resource(podGroup("gang", Map.of("gang", Map.of("minCount", 3))))
        .create();
    assertThat((String) at(created.getAdditionalProperties(), "spec", "podGroupTemplateRef", "workload",
        "podGroupTemplateName")).isEqualTo("workers");

    GenericKubernetesResource current = groups.withName("gang").get();
    current.getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type",
        "PodGroupScheduled", "status", "False", "reason", "Unschedulable", "message", "2 of 3 pods fit",
        "lastTransitionTime", "2026-01-01T00:00:00Z"))));
    GenericKubernetesResource afterStatus = groups.resource(current).updateStatus();
    assertThat((String) at(afterStatus.getAdditionalProperties(), "status", "conditions", 0, "reason"))
        .isEqualTo("Unschedulable");

    GenericKubernetesResource withSpec = groups.withName("gang").get();
    withSpec.getAdditionalProperties().put("status", Map.of());
    groups.resource(withSpec).update();
    assertThat((String) at(groups.withName("gang").get().getAdditionalProperties(), "status", "conditions", 0,
        "type")).as("the main resource ignores status").isEqualTo("PodGroupScheduled");

    GenericKubernetesResource bad = groups.withName("gang").get();
    bad.getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type", "PodGroupScheduled",
        "status", "Maybe", "reason", "Scheduled", "message", "", "lastTransitionTime", "2026-01-01T00:00:00Z"))));
    assertThatThrownBy(() -> groups.resource(bad).updateStatus())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getMessage())
            .contains("status.conditions[0].status"));
    groups.withName("gang").delete();
  }

  @Test
  void watchSeesPodGroupsAddedUpdatedAndDeleted() throws Exception {
    var groups = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace("default");
    List<String> events = new CopyOnWriteArrayList<>();
    try (Watch ignored = groups.watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource resource) {
        if (resource.getMetadata().getName().equals("watched")) {
          events.add(action.name());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      groups.resource(podGroup("watched", Map.of("basic", Map.of()))).create();
      GenericKubernetesResource current = groups.withName("watched").get();
      current.getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type",
          "PodGroupScheduled", "status", "True", "reason", "Scheduled", "message", "",
          "lastTransitionTime", "2026-01-01T00:00:00Z"))));
      groups.resource(current).updateStatus();
      groups.withName("watched").delete();
      Awaitility.await().atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(events).containsExactly("ADDED", "MODIFIED", "DELETED"));
    }
  }

  @Test
  void discoveryServesV1alpha2BesideTheBuiltInV1() {
    KubernetesClient client = CLUSTER.client();
    List<APIResource> alpha = client.getApiResources(V1ALPHA2).getResources();
    assertThat(alpha).extracting(APIResource::getName).contains("workloads", "podgroups", "podgroups/status")
        .doesNotContain("workloads/status");
    assertThat(client.getApiResources("scheduling.k8s.io/v1").getResources()).extracting(APIResource::getName)
        .contains("priorityclasses");
    assertThat(client.genericKubernetesResources(V1ALPHA2, "PodGroup").inAnyNamespace().list().getItems())
        .isNotNull();
  }

  @Test
  void podsKeepTheirSchedulingGroup() {
    var pods = CLUSTER.client().pods().inNamespace("default");
    pods.resource(new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("member")
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("pause").endContainer()
        .withNewSchedulingGroup().withPodGroupName("gang").endSchedulingGroup().endSpec().build()).create();
    assertThat(pods.withName("member").get().getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo("gang");
    pods.withName("member").withGracePeriod(0).delete();
  }
}
