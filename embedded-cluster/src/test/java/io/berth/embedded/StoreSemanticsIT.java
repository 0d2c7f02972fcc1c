package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the store must keep doing right: generations, resourceVersions, conflicts, finalizers, names, defaults. */
class StoreSemanticsIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v").build();
  }

  @Test
  void generationStartsAtOneAndMovesOnlyWithTheSpec() {
    KubernetesClient client = CLUSTER.client();
    Deployment d = client.apps().deployments().resource(Fixtures.deployment("gen", 1)).create();
    assertThat(d.getMetadata().getGeneration()).isEqualTo(1L);
    Deployment labelled = client.apps().deployments().withName("gen").edit(x -> {
      x.getMetadata().setLabels(Map.of("touched", "yes"));
      return x;
    });
    assertThat(labelled.getMetadata().getGeneration()).isEqualTo(1L);
    Deployment scaled = client.apps().deployments().withName("gen").edit(x -> {
      x.getSpec().setReplicas(4);
      return x;
    });
    assertThat(scaled.getMetadata().getGeneration()).isEqualTo(2L);
    Deployment current = client.apps().deployments().withName("gen").get();
    current.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder().withReplicas(4)
        .withObservedGeneration(2L).build());
    current.getMetadata().setAnnotations(Map.of("deployment.kubernetes.io/revision", "2"));
    current.getMetadata().setLabels(Map.of("ignored", "through-status"));
    Deployment withStatus = client.apps().deployments().resource(current).updateStatus();
    assertThat(withStatus.getMetadata().getGeneration()).isEqualTo(2L);
    assertThat(withStatus.getStatus().getReplicas()).isEqualTo(4);
    // As kube-apiserver's apps status strategy: annotations stick, labels and spec do not.
    assertThat(withStatus.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
    assertThat(withStatus.getMetadata().getLabels()).containsEntry("touched", "yes").doesNotContainKey("ignored");
  }

  @Test
  void resourceVersionsAreGlobalAndStrictlyIncreasing() {
    KubernetesClient client = CLUSTER.client();
    List<Long> versions = new ArrayList<>();
    versions.add(Long.parseLong(client.configMaps().resource(configMap("rv-1")).create().getMetadata()
        .getResourceVersion()));
    versions.add(Long.parseLong(client.pods().resource(Fixtures.pod("rv-pod")).create().getMetadata()
        .getResourceVersion()));
    versions.add(Long.parseLong(client.configMaps().withName("rv-1").edit(c -> {
      c.getData().put("k", "v2");
      return c;
    }).getMetadata().getResourceVersion()));
    versions.add(Long.parseLong(client.apps().deployments().resource(Fixtures.deployment("rv-dep", 1)).create()
        .getMetadata().getResourceVersion()));
    assertThat(versions).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void anUpdateWithAStaleResourceVersionIsAConflict() {
    KubernetesClient client = CLUSTER.client();
    ConfigMap original = client.configMaps().resource(configMap("stale")).create();
    client.configMaps().withName("stale").edit(c -> {
      c.getData().put("k", "newer");
      return c;
    });
    original.getData().put("k", "from-stale-copy");
    assertThatThrownBy(() -> client.configMaps().resource(original).update())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(409);
          assertThat(e.getMessage()).contains("the object has been modified");
        });
    assertThat(client.configMaps().withName("stale").get().getData()).containsEntry("k", "newer");
  }

  @Test
  void aNoOpUpdateKeepsTheResourceVersion() {
    KubernetesClient client = CLUSTER.client();
    ConfigMap created = client.configMaps().resource(configMap("noop")).create();
    ConfigMap same = client.configMaps().resource(created).update();
    assertThat(same.getMetadata().getResourceVersion()).isEqualTo(created.getMetadata().getResourceVersion());
  }

  @Test
  void finalizersKeepADeletedObjectUntilTheyAreRemoved() {
    KubernetesClient client = CLUSTER.client();
    client.configMaps().resource(new ConfigMapBuilder(configMap("held")).editMetadata()
        .withFinalizers("example.com/hold").endMetadata().build()).create();
    client.configMaps().withName("held").delete();
    ConfigMap deleting = client.configMaps().withName("held").get();
    assertThat(deleting).isNotNull();
    assertThat(deleting.getMetadata().getDeletionTimestamp()).isNotBlank();
    client.configMaps().withName("held").edit(c -> {
      c.getMetadata().setFinalizers(List.of());
      return c;
    });
    assertThat(client.configMaps().withName("held").get()).isNull();
  }

  @Test
  void generateNameAppendsFiveCharactersFromTheUpstreamAlphabet() {
    KubernetesClient client = CLUSTER.client();
    Pod pod = client.pods().resource(new PodBuilder(Fixtures.pod("ignored")).editMetadata().withName(null)
        .withGenerateName("web-7d9f-").endMetadata().build()).create();
    assertThat(pod.getMetadata().getName()).matches("web-7d9f-[bcdfghjklmnpqrstvwxz2456789]{5}");
  }

  @Test
  void createWithoutANameOrGenerateNameIsInvalidAndNamesTheField() {
    KubernetesClient client = CLUSTER.client();
    String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}}";
    assertThatThrownBy(() -> client.raw(CLUSTER.cluster().url() + "/api/v1/namespaces/default/configmaps", "POST",
        body)).isInstanceOf(KubernetesClientException.class);
    assertThat(CLUSTER.cluster().requestLog().count("create", "configmaps")).isPositive();
  }

  @Test
  void creatingInAMissingNamespaceIsNotFound() {
    KubernetesClient client = CLUSTER.client();
    assertThatThrownBy(() -> client.configMaps().inNamespace("no-such-ns").resource(configMap("x")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(404);
          assertThat(e.getMessage()).contains("namespaces \"no-such-ns\" not found");
        });
  }

  @Test
  void deploymentAndPodDefaultsAreSet() {
    KubernetesClient client = CLUSTER.client();
    Deployment d = client.apps().deployments().resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder(
        Fixtures.deployment("defaults", 1)).editSpec().withReplicas(null).endSpec().build()).create();
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(d.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getStrVal()).isEqualTo("25%");
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getStrVal()).isEqualTo("25%");
    assertThat(d.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
    assertThat(d.getSpec().getProgressDeadlineSeconds()).isEqualTo(600);

    Pod p = client.pods().resource(Fixtures.pod("defaulted")).create();
    assertThat(p.getSpec().getSchedulerName()).isEqualTo("default-scheduler");
    assertThat(p.getSpec().getRestartPolicy()).isEqualTo("Always");
    assertThat(p.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);
    assertThat(p.getSpec().getEnableServiceLinks()).isTrue();
    assertThat(p.getSpec().getPriority()).isZero();
    assertThat(p.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(p.getStatus().getQosClass()).isEqualTo("BestEffort");
  }

  @Test
  void podPriorityComesFromItsPriorityClassAndAMissingClassIsForbidden() {
    KubernetesClient client = CLUSTER.client();
    client.scheduling().v1().priorityClasses().resource(new PriorityClassBuilder().withNewMetadata()
        .withName("high").endMetadata().withValue(1000).build()).create();
    Pod high = client.pods().resource(new PodBuilder(Fixtures.pod("high-pod")).editSpec()
        .withPriorityClassName("high").endSpec().build()).create();
    assertThat(high.getSpec().getPriority()).isEqualTo(1000);
    Pod critical = client.pods().resource(new PodBuilder(Fixtures.pod("critical-pod")).editSpec()
        .withPriorityClassName("system-cluster-critical").endSpec().build()).create();
    assertThat(critical.getSpec().getPriority()).isEqualTo(2_000_000_000);
    assertThatThrownBy(() -> client.pods().resource(new PodBuilder(Fixtures.pod("lost-pod")).editSpec()
        .withPriorityClassName("missing").endSpec().build()).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(403);
          assertThat(e.getMessage()).contains("missing");
        });
  }

  @Test
  void invalidPodsAreRejectedWithTheField() {
    KubernetesClient client = CLUSTER.client();
    Pod noImage = new PodBuilder(Fixtures.pod("no-image")).editSpec().editFirstContainer().withImage(null)
        .endContainer().endSpec().build();
    assertThatThrownBy(() -> client.pods().resource(noImage).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("spec.containers[0].image");
        });
  }

  @Test
  void coreAndEventsV1EventsCanBeWrittenAndListed() {
    KubernetesClient client = CLUSTER.client();
    client.v1().events().resource(new EventBuilder().withNewMetadata().withName("core-event").endMetadata()
        .withReason("Scheduled").withMessage("assigned").withType("Normal").withNewInvolvedObject()
        .withKind("Pod").withName("p").withNamespace("default").endInvolvedObject().build()).create();
    client.events().v1().events().resource(new io.fabric8.kubernetes.api.model.events.v1.EventBuilder()
        .withNewMetadata().withName("new-event").endMetadata().withReason("Scheduled").withNote("assigned")
        .withType("Normal").withAction("Binding").withReportingController("berth")
        .withReportingInstance("berth-1").withEventTime(new io.fabric8.kubernetes.api.model.MicroTime(
            "2026-01-01T00:00:00.000000Z")).withNewRegarding().withKind("Pod").withName("p").endRegarding()
        .build()).create();
    assertThat(client.v1().events().withField("reason", "Scheduled").list().getItems())
        .extracting(e -> e.getMetadata().getName()).contains("core-event");
    assertThat(client.events().v1().events().list().getItems()).extracting(e -> e.getMetadata().getName())
        .contains("new-event");
  }
}
