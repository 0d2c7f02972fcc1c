package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.StoredObject;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bulk loading ({@link SimulatedNodes#addAll}, {@link EmbeddedCluster#createAll}): the objects read back over HTTP
 * carry the same defaults as HTTP creates, watchers get one ADDED per object in order, and a bad object refuses the
 * whole batch with a message naming the object and the field.
 */
class BulkLoadIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static void namespace(String name) {
    CLUSTER.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata()
        .build()).create();
  }

  private static String nodesWatchUrl(long rv) {
    return CLUSTER.cluster().url() + "/api/v1/nodes?watch=true&resourceVersion=" + rv;
  }

  @Test
  void addAllStoresReadyNodesAndSendsOneAddedEachInOrder() throws Exception {
    long before = CLUSTER.cluster().store().resourceVersion();
    List<NodeSpec> specs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      specs.add(NodeSpec.node("bulk-node-" + i).withZone("zone-" + (i % 3)));
    }
    try (HttpWatch watch = new HttpWatch(nodesWatchUrl(before))) {
      List<StoredObject> stored = CLUSTER.cluster().nodes().addAll(specs);
      assertThat(stored).extracting(StoredObject::name).containsExactlyElementsOf(
          specs.stream().map(NodeSpec::name).toList());
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> watch.summary().size() >= 50);
      assertThat(watch.summary()).containsExactlyElementsOf(
          specs.stream().map(s -> "ADDED:" + s.name()).toList());
    }
    Node node = CLUSTER.client().nodes().withName("bulk-node-7").get();
    assertThat(node.getMetadata().getUid()).isNotEmpty();
    assertThat(node.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "zone-1")
        .containsEntry("kubernetes.io/hostname", "bulk-node-7");
    assertThat(node.getStatus().getConditions()).anySatisfy(c -> {
      assertThat(c.getType()).isEqualTo("Ready");
      assertThat(c.getStatus()).isEqualTo("True");
    });
  }

  @Test
  void createAllAppliesThePodDefaultsAnHttpCreateApplies() {
    namespace("bulk-defaults");
    Pod overHttp = CLUSTER.client().pods().inNamespace("bulk-defaults").resource(Fixtures.pod("by-http")).create();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pods.add(inNamespace(Fixtures.pod("bulk-" + i), "bulk-defaults"));
    }
    CLUSTER.cluster().createAll(pods);
    Pod bulk = CLUSTER.client().pods().inNamespace("bulk-defaults").withName("bulk-3").get();
    assertThat(bulk.getMetadata().getUid()).isNotEmpty().isNotEqualTo(overHttp.getMetadata().getUid());
    assertThat(bulk.getMetadata().getCreationTimestamp()).isNotEmpty();
    assertThat(bulk.getSpec().getRestartPolicy()).isEqualTo(overHttp.getSpec().getRestartPolicy()).isEqualTo(
        "Always");
    assertThat(bulk.getSpec().getSchedulerName()).isEqualTo("default-scheduler");
    assertThat(bulk.getSpec().getTerminationGracePeriodSeconds()).isEqualTo(30L);
    assertThat(bulk.getSpec().getDnsPolicy()).isEqualTo(overHttp.getSpec().getDnsPolicy());
    assertThat(bulk.getSpec().getPriority()).isEqualTo(overHttp.getSpec().getPriority());
    assertThat(bulk.getSpec().getTolerations()).isEqualTo(overHttp.getSpec().getTolerations());
    assertThat(bulk.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(bulk.getStatus().getQosClass()).isEqualTo(overHttp.getStatus().getQosClass());
    assertThat(CLUSTER.client().pods().inNamespace("bulk-defaults").list().getItems()).hasSize(21);
  }

  @Test
  void anInvalidPodRefusesTheWholeBatchNamingThePodAndTheField() {
    namespace("bulk-invalid");
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pods.add(inNamespace(Fixtures.pod("ok-" + i), "bulk-invalid"));
    }
    pods.set(3, new PodBuilder(pods.get(3)).editMetadata().withName("no-image").endMetadata().editSpec()
        .editFirstContainer().withImage(null).endContainer().endSpec().build());
    long before = CLUSTER.cluster().store().resourceVersion();
    assertThatThrownBy(() -> CLUSTER.cluster().createAll(pods))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(422))
        .hasMessageContaining("pods[3]").hasMessageContaining("bulk-invalid/no-image")
        .hasMessageContaining("spec.containers[0].image: Required value")
        .hasMessageContaining("nothing was created");
    assertThat(CLUSTER.client().pods().inNamespace("bulk-invalid").list().getItems()).isEmpty();
    assertThat(CLUSTER.cluster().store().resourceVersion()).isEqualTo(before);
  }

  @Test
  void aNameTwiceInOneBatchOrAlreadyStoredIsAConflictAndNothingIsAdded() {
    CLUSTER.cluster().nodes().add(NodeSpec.node("bulk-existing"));
    assertThatThrownBy(() -> CLUSTER.cluster().nodes().addAll(List.of(NodeSpec.node("bulk-a"),
        NodeSpec.node("bulk-b"), NodeSpec.node("bulk-a"))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409))
        .hasMessageContaining("nodes[2] (bulk-a)").hasMessageContaining("already exists");
    assertThatThrownBy(() -> CLUSTER.cluster().nodes().addAll(List.of(NodeSpec.node("bulk-c"),
        NodeSpec.node("bulk-existing"))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409))
        .hasMessageContaining("nodes[1] (bulk-existing)");
    assertThat(CLUSTER.client().nodes().withName("bulk-a").get()).isNull();
    assertThat(CLUSTER.client().nodes().withName("bulk-c").get()).isNull();
  }

  @Test
  void aPodInAMissingNamespaceIsRefusedByName() {
    assertThatThrownBy(() -> CLUSTER.cluster().createAll(List.of(inNamespace(Fixtures.pod("lost"), "no-such-ns"))))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(404))
        .hasMessageContaining("pods[0] (no-such-ns/lost)");
  }

  @Test
  void objectsOfSeveralKindsAreRefusedBeforeAnythingIsStored() {
    namespace("bulk-mixed");
    List<HasMetadata> mixed = List.of(inNamespace(Fixtures.pod("p"), "bulk-mixed"),
        new ConfigMapBuilder().withNewMetadata().withName("c").withNamespace("bulk-mixed").endMetadata().build());
    assertThatThrownBy(() -> CLUSTER.cluster().createAll(mixed)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one kind").hasMessageContaining("ConfigMap c");
    assertThat(CLUSTER.client().pods().inNamespace("bulk-mixed").list().getItems()).isEmpty();
  }

  private static Pod inNamespace(Pod pod, String namespace) {
    return new PodBuilder(pod).editMetadata().withNamespace(namespace).endMetadata().build();
  }
}
