package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.berth.embedded.kubelet.KubeletSettings;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Binding, eviction, status and scale subresources through the fabric8 client. */
class SubresourcesIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO).withTerminationDelay(Duration.ZERO)));

  private static Binding binding(String pod, String node) {
    return new BindingBuilder().withNewMetadata().withName(pod).endMetadata()
        .withNewTarget().withKind("Node").withApiVersion("v1").withName(node).endTarget().build();
  }

  @Test
  void bindingSetsNodeNameAndPodScheduledThenConflictsOnSecondBind() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("bind-me")).create();
    client.bindings().resource(binding("bind-me", "n1")).create();
    Pod bound = client.pods().withName("bind-me").get();
    assertThat(bound.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(bound.getStatus().getConditions()).extracting(PodCondition::getType, PodCondition::getStatus)
        .contains(org.assertj.core.groups.Tuple.tuple("PodScheduled", "True"));
    assertThatThrownBy(() -> client.bindings().resource(binding("bind-me", "n2")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(409);
          assertThat(e.getMessage()).contains("already assigned to node \"n1\"");
        });
    assertThat(client.pods().withName("bind-me").get().getSpec().getNodeName()).isEqualTo("n1");
  }

  @Test
  void bindingClearsTheNominatedNodeName() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("nominated")).create();
    client.pods().withName("nominated").editStatus(p -> {
      p.getStatus().setNominatedNodeName("n1");
      return p;
    });
    assertThat(client.pods().withName("nominated").get().getStatus().getNominatedNodeName())
        .isEqualTo("n1");

    client.bindings().resource(binding("nominated", "n1")).create();

    Pod bound = client.pods().withName("nominated").get();
    assertThat(bound.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(bound.getStatus().getNominatedNodeName()).isNull();
  }

  @Test
  void bindingSubresourceOfMissingPodIs404() {
    KubernetesClient client = CLUSTER.client();
    assertThatThrownBy(() -> client.pods().withName("never-created").edit(p -> p))
        .isInstanceOf(KubernetesClientException.class);
    assertThatThrownBy(() -> client.bindings().resource(binding("never-created", "n1")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }

  @Test
  void bindingThroughPodsBindingPathIsCreated() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("bind-sub")).create();
    String path = CLUSTER.cluster().url() + "/api/v1/namespaces/default/pods/bind-sub/binding";
    String body = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"bind-sub\"},"
        + "\"target\":{\"kind\":\"Node\",\"name\":\"n3\"}}";
    var response = client.raw(path, "POST", body);
    assertThat(response).contains("Success");
    assertThat(client.pods().withName("bind-sub").get().getSpec().getNodeName()).isEqualTo("n3");
  }

  @Test
  void evictionDeletesPodUnlessItWouldViolateABudget() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("evict-node"));
    Map<String, String> labels = Map.of("app", "guarded");
    for (String name : new String[] {"g1", "g2"}) {
      client.pods().resource(new io.fabric8.kubernetes.api.model.PodBuilder(Fixtures.pod(name, labels))
          .editSpec().withNodeName("evict-node").endSpec().build()).create();
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> client.pods().withLabel("app", "guarded").list()
        .getItems().stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())));
    client.policy().v1().podDisruptionBudget().inNamespace("default").resource(new PodDisruptionBudgetBuilder().withNewMetadata()
        .withName("guard").endMetadata().withNewSpec().withMinAvailable(new IntOrString(1)).withNewSelector()
        .addToMatchLabels(labels).endSelector().endSpec().build()).create();

    boolean first = client.pods().withName("g1").evict(new EvictionBuilder().withNewMetadata().withName("g1")
        .withNamespace("default").endMetadata().build());
    assertThat(first).isTrue();
    boolean second = client.pods().withName("g2").evict();
    assertThat(second).as("a second eviction would leave fewer than minAvailable=1").isFalse();
    assertThat(client.pods().withName("g2").get()).isNotNull();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> client.pods().withName("g1").get() == null);
  }

  @Test
  void mainResourceIgnoresStatusAndStatusSubresourceIgnoresTheRest() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("status-split")).create();
    Pod edited = client.pods().withName("status-split").edit(p -> {
      p.getMetadata().getLabels().put("edited", "yes");
      p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Succeeded").build());
      return p;
    });
    assertThat(edited.getMetadata().getLabels()).containsEntry("edited", "yes");
    assertThat(edited.getStatus() == null ? null : edited.getStatus().getPhase()).isNotEqualTo("Succeeded");

    Pod current = client.pods().withName("status-split").get();
    current.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Failed").build());
    current.getMetadata().getLabels().put("via-status", "ignored");
    Pod afterStatus = client.pods().resource(current).updateStatus();
    assertThat(afterStatus.getStatus().getPhase()).isEqualTo("Failed");
    assertThat(afterStatus.getMetadata().getLabels()).doesNotContainKey("via-status");
  }

  @Test
  void scaleSubresourceReadsAndWritesReplicas() {
    KubernetesClient client = CLUSTER.client();
    client.apps().deployments().resource(Fixtures.deployment("scaled", 2)).create();
    assertThat(client.apps().deployments().withName("scaled").scale().getSpec().getReplicas()).isEqualTo(2);
    client.apps().deployments().withName("scaled").scale(5);
    assertThat(client.apps().deployments().withName("scaled").get().getSpec().getReplicas()).isEqualTo(5);
  }
}
