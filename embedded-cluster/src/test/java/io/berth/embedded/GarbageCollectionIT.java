package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Cascading deletion through controller ownerReferences, as kube-controller-manager's garbage collector does it. */
class GarbageCollectionIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO)
          .withTerminationDelay(Duration.ofMillis(200))));

  @BeforeAll
  static void node() {
    CLUSTER.cluster().nodes().add(NodeSpec.node("gc-node").withPods(500).withCpu("64"));
  }

  private static OwnerReference controllerRef(HasMetadata owner) {
    return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true)
        .withBlockOwnerDeletion(true).build();
  }

  /** A Deployment owning one ReplicaSet owning {@code pods} bound pods, all in namespace {@code ns}. */
  private static Deployment tree(String ns, String name, int pods) {
    KubernetesClient client = CLUSTER.client();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    Deployment d = client.apps().deployments().inNamespace(ns).resource(Fixtures.deployment(name, pods)).create();
    ReplicaSet rs = client.apps().replicaSets().inNamespace(ns).resource(new ReplicaSetBuilder()
        .withNewMetadata().withName(name + "-rs").withOwnerReferences(controllerRef(d)).endMetadata()
        .withSpec(new io.fabric8.kubernetes.api.model.apps.ReplicaSetSpecBuilder().withReplicas(pods)
            .withSelector(d.getSpec().getSelector()).withTemplate(d.getSpec().getTemplate()).build())
        .build()).create();
    for (int i = 0; i < pods; i++) {
      Pod pod = new PodBuilder(Fixtures.pod(name + "-pod-" + i, java.util.Map.of("app", name))).editMetadata()
          .withOwnerReferences(controllerRef(rs)).endMetadata().editSpec().withNodeName("gc-node").endSpec().build();
      client.pods().inNamespace(ns).resource(pod).create();
    }
    return d;
  }

  @Test
  void backgroundDeletionRemovesTheOwnerAtOnceAndThenEveryDependent() {
    KubernetesClient client = CLUSTER.client();
    tree("gc-bg", "web", 3);
    client.apps().deployments().inNamespace("gc-bg").withName("web").delete();
    assertThat(client.apps().deployments().inNamespace("gc-bg").withName("web").get()).isNull();
    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(client.apps().replicaSets().inNamespace("gc-bg").list().getItems()).isEmpty();
      assertThat(client.pods().inNamespace("gc-bg").list().getItems()).isEmpty();
    });
  }

  @Test
  void orphanDeletionKeepsDependentsAndStripsTheirOwnerReference() {
    KubernetesClient client = CLUSTER.client();
    tree("gc-orphan", "web", 2);
    client.apps().replicaSets().inNamespace("gc-orphan").withName("web-rs")
        .withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(client.apps().replicaSets().inNamespace("gc-orphan").withName("web-rs").get()).isNull());
    assertThat(client.pods().inNamespace("gc-orphan").list().getItems()).hasSize(2)
        .allSatisfy(p -> assertThat(p.getMetadata().getOwnerReferences()).isNullOrEmpty());
    assertThat(client.apps().deployments().inNamespace("gc-orphan").withName("web").get()).isNotNull();
  }

  @Test
  void foregroundDeletionKeepsTheOwnerUntilBlockingDependentsAreGone() {
    KubernetesClient client = CLUSTER.client();
    tree("gc-fg", "web", 2);
    client.apps().deployments().inNamespace("gc-fg").withName("web")
        .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
    Deployment deleting = client.apps().deployments().inNamespace("gc-fg").withName("web").get();
    assertThat(deleting).isNotNull();
    assertThat(deleting.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(deleting.getMetadata().getFinalizers()).contains("foregroundDeletion");
    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(client.apps().deployments().inNamespace("gc-fg").withName("web").get()).isNull();
      assertThat(client.apps().replicaSets().inNamespace("gc-fg").list().getItems()).isEmpty();
      assertThat(client.pods().inNamespace("gc-fg").list().getItems()).isEmpty();
    });
  }

  @Test
  void aDependentWithAnotherLiveOwnerLosesOnlyTheDanglingReference() {
    KubernetesClient client = CLUSTER.client();
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("gc-two").endMetadata()
        .build()).create();
    var a = client.configMaps().inNamespace("gc-two").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
        .withNewMetadata().withName("owner-a").endMetadata().build()).create();
    var b = client.configMaps().inNamespace("gc-two").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
        .withNewMetadata().withName("owner-b").endMetadata().build()).create();
    OwnerReference refA = new OwnerReferenceBuilder(controllerRef(a)).withController(false).build();
    OwnerReference refB = new OwnerReferenceBuilder(controllerRef(b)).withController(false).build();
    client.configMaps().inNamespace("gc-two").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
        .withNewMetadata().withName("shared").withOwnerReferences(refA, refB).endMetadata().build()).create();
    client.configMaps().inNamespace("gc-two").withName("owner-a").delete();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(client.configMaps().inNamespace("gc-two").withName("shared").get().getMetadata()
            .getOwnerReferences()).extracting(OwnerReference::getName).containsExactly("owner-b"));
    client.configMaps().inNamespace("gc-two").withName("owner-b").delete();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(client.configMaps().inNamespace("gc-two").withName("shared").get()).isNull());
  }

  @Test
  void deletingANamespaceDeletesItsContents() {
    KubernetesClient client = CLUSTER.client();
    tree("gc-ns", "web", 1);
    client.namespaces().withName("gc-ns").delete();
    Awaitility.await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(client.apps().deployments().inNamespace("gc-ns").list().getItems()).isEmpty();
      assertThat(client.pods().inNamespace("gc-ns").list().getItems()).isEmpty();
    });
  }
}
