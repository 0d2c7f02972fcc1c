package io.berth.controller.replicaset;

import static io.berth.controller.replicaset.Workloads.activePods;
import static io.berth.controller.replicaset.Workloads.create;
import static io.berth.controller.replicaset.Workloads.get;
import static io.berth.controller.replicaset.Workloads.orZero;
import static io.berth.controller.replicaset.Workloads.replicaSet;
import static io.berth.controller.replicaset.Workloads.scale;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.fault.RequestRecord;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.server.ResourceTypes;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ReplicaSet controller against the embedded API server over HTTP, with simulated nodes and a test binder. */
class ReplicaSetControllerIT {

  private static final String NS = "default";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO)
          .withTerminationDelay(Duration.ofMillis(100))));

  private static ControllerHarness harness;

  @BeforeAll
  static void startController() throws InterruptedException {
    EmbeddedCluster cluster = CLUSTER.cluster();
    for (int i = 1; i <= 3; i++) {
      cluster.nodes().add(NodeSpec.node("node-" + i).withPods(1100).withCpu("1000"));
    }
    harness = ControllerHarness.start(cluster, true);
    // the informers' initial lists: one per informer of the shared factory (pods, replicasets, nodes)
    assertThat(cluster.requestLog().count("list", "pods")).isEqualTo(1);
    assertThat(cluster.requestLog().count("list", "replicasets")).isEqualTo(1);
  }

  @AfterAll
  static void stopController() throws InterruptedException {
    if (harness != null) {
      harness.close();
    }
  }

  @AfterEach
  void clearFaults() {
    CLUSTER.cluster().faults().clear();
    harness.binder.resume();
  }

  private static KubernetesClient client() {
    return CLUSTER.client();
  }

  private static ReplicaSetStatus status(String name) {
    ReplicaSet rs = get(client(), NS, name);
    return rs.getStatus() == null ? new ReplicaSetStatus() : rs.getStatus();
  }

  private static void awaitStatus(String name, int replicas, int ready, int available, long observedGeneration) {
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      ReplicaSetStatus s = status(name);
      assertThat(orZero(s.getReplicas())).as("replicas").isEqualTo(replicas);
      assertThat(orZero(s.getReadyReplicas())).as("readyReplicas").isEqualTo(ready);
      assertThat(orZero(s.getAvailableReplicas())).as("availableReplicas").isEqualTo(available);
      assertThat(orZero(s.getObservedGeneration())).as("observedGeneration").isEqualTo(observedGeneration);
    });
  }

  private static List<Event> events(String objectName, String reason) {
    return client().v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> objectName.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .toList();
  }

  private static int eventCount(List<Event> events) {
    return events.stream().mapToInt(e -> e.getCount() == null ? 1 : e.getCount()).sum();
  }

  @Test
  void scalesFromZeroToThreeToOneToZeroWithStatusAndEvents() {
    ReplicaSet rs = create(client(), replicaSet(NS, "scale", 0).build());
    awaitStatus("scale", 0, 0, 0, 1);

    scale(client(), NS, "scale", 3);
    awaitStatus("scale", 3, 3, 3, 2);
    List<Pod> three = activePods(client(), NS, "scale");
    assertThat(three).hasSize(3).allSatisfy(p -> {
      assertThat(p.getMetadata().getName()).startsWith("scale-");
      assertThat(p.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
        assertThat(ref.getUid()).isEqualTo(rs.getMetadata().getUid());
        assertThat(ref.getKind()).isEqualTo("ReplicaSet");
        assertThat(ref.getController()).isTrue();
        assertThat(ref.getBlockOwnerDeletion()).isTrue();
      });
    });

    scale(client(), NS, "scale", 1);
    awaitStatus("scale", 1, 1, 1, 3);
    scale(client(), NS, "scale", 0);
    awaitStatus("scale", 0, 0, 0, 4);
    await().atMost(30, TimeUnit.SECONDS).until(() -> activePods(client(), NS, "scale").isEmpty());

    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      List<Event> created = events("scale", "SuccessfulCreate");
      List<Event> deleted = events("scale", "SuccessfulDelete");
      assertThat(eventCount(created)).isEqualTo(3);
      assertThat(eventCount(deleted)).isEqualTo(3);
      assertThat(created).allSatisfy(e -> {
        assertThat(e.getType()).isEqualTo("Normal");
        assertThat(e.getMessage()).matches("Created pod: scale-[a-z0-9]{5}");
        assertThat(e.getSource().getComponent()).isEqualTo("replicaset-controller");
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("ReplicaSet");
        assertThat(e.getInvolvedObject().getUid()).isEqualTo(rs.getMetadata().getUid());
        assertThat(e.getMetadata().getName()).matches("scale\\.[0-9a-f]+");
      });
      assertThat(deleted).allSatisfy(e -> assertThat(e.getMessage()).matches("Deleted pod: scale-[a-z0-9]{5}"));
      Set<String> createdNames = created.stream().map(e -> e.getMessage().substring("Created pod: ".length()))
          .collect(Collectors.toSet());
      assertThat(createdNames).containsAll(three.stream().map(p -> p.getMetadata().getName()).toList());
    });
  }

  @Test
  void adoptsAMatchingOrphanAndReleasesAPodWhoseLabelsStopMatching() {
    Pod orphan = client().pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("stray")
        .withLabels(Map.of("app", "adopt")).endMetadata().withNewSpec().addNewContainer().withName("c")
        .withImage("nginx").endContainer().endSpec().build()).create();
    ReplicaSet rs = create(client(), replicaSet(NS, "adopt", 1).build());

    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Pod adopted = client().pods().inNamespace(NS).withName("stray").get();
      assertThat(adopted.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
        assertThat(ref.getUid()).isEqualTo(rs.getMetadata().getUid());
        assertThat(ref.getName()).isEqualTo("adopt");
        assertThat(ref.getApiVersion()).isEqualTo("apps/v1");
        assertThat(ref.getController()).isTrue();
        assertThat(ref.getBlockOwnerDeletion()).isTrue();
      });
    });
    awaitStatus("adopt", 1, 1, 1, 1);
    assertThat(activePods(client(), NS, "adopt")).extracting(p -> p.getMetadata().getUid())
        .containsExactly(orphan.getMetadata().getUid());

    client().pods().inNamespace(NS).withName("stray").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{\"app\":\"elsewhere\"}}}");
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      Pod released = client().pods().inNamespace(NS).withName("stray").get();
      assertThat(released.getMetadata().getOwnerReferences()).isEmpty();
      List<Pod> replacements = activePods(client(), NS, "adopt");
      assertThat(replacements).singleElement().satisfies(p -> {
        assertThat(p.getMetadata().getName()).startsWith("adopt-");
        assertThat(p.getMetadata().getOwnerReferences()).extracting(OwnerReference::getUid)
            .containsExactly(rs.getMetadata().getUid());
      });
    });
  }

  @Test
  void scalingDownDeletesUnboundPendingPodsBeforeRunningOnes() {
    create(client(), replicaSet(NS, "rank", 3).build());
    awaitStatus("rank", 3, 3, 3, 1);
    Set<String> running = activePods(client(), NS, "rank").stream().map(p -> p.getMetadata().getName())
        .collect(Collectors.toSet());

    harness.binder.pause();
    scale(client(), NS, "rank", 5);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(activePods(client(), NS, "rank")).hasSize(5)
          .filteredOn(p -> p.getSpec().getNodeName() == null).hasSize(2);
      assertThat(orZero(status("rank").getReplicas())).isEqualTo(5);
    });

    scale(client(), NS, "rank", 3);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(activePods(client(), NS, "rank")).extracting(p -> p.getMetadata().getName())
            .containsExactlyInAnyOrderElementsOf(running));
    awaitStatus("rank", 3, 3, 3, 3);
  }

  @Test
  void createErrorsSetReplicaFailureUntilASyncSucceeds() {
    CLUSTER.cluster().faults().failNext("create", "pods", 1_000, 500);
    create(client(), replicaSet(NS, "failing", 2).build());
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      List<ReplicaSetCondition> conditions = status("failing").getConditions();
      assertThat(conditions).singleElement().satisfies(c -> {
        assertThat(c.getType()).isEqualTo("ReplicaFailure");
        assertThat(c.getStatus()).isEqualTo("True");
        assertThat(c.getReason()).isEqualTo("FailedCreate");
        assertThat(c.getMessage()).isNotBlank();
      });
      assertThat(events("failing", "FailedCreate")).isNotEmpty()
          .allSatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).startsWith("Error creating: ");
          });
    });
    assertThat(activePods(client(), NS, "failing")).isEmpty();

    CLUSTER.cluster().faults().clear();
    // any change of the ReplicaSet syncs it now instead of after the grown backoff
    client().apps().replicaSets().inNamespace(NS).withName("failing").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"annotations\":{\"poke\":\"1\"}}}");
    awaitStatus("failing", 2, 2, 2, 1);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(status("failing").getConditions()).isEmpty());
  }

  @Test
  void deleteErrorsSetFailedDeleteWithUpstreamMessagesUntilASyncSucceeds() {
    create(client(), replicaSet(NS, "undeletable", 2).build());
    awaitStatus("undeletable", 2, 2, 2, 1);
    CLUSTER.cluster().faults().failNext("delete", "pods", 1_000, 500);
    scale(client(), NS, "undeletable", 1);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() -> {
      assertThat(status("undeletable").getConditions()).singleElement().satisfies(c -> {
        assertThat(c.getReason()).isEqualTo("FailedDelete");
        assertThat(c.getMessage()).isEqualTo("unable to delete pods: injected fault: 500");
      });
      assertThat(events("undeletable", "FailedDelete")).isNotEmpty().allSatisfy(e -> {
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getMessage()).isEqualTo("Error deleting: injected fault: 500");
      });
    });
    assertThat(activePods(client(), NS, "undeletable")).hasSize(2);

    CLUSTER.cluster().faults().clear();
    client().apps().replicaSets().inNamespace(NS).withName("undeletable").patch(
        PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"annotations\":{\"poke\":\"1\"}}}");
    awaitStatus("undeletable", 1, 1, 1, 2);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(status("undeletable").getConditions()).isEmpty());
  }

  @Test
  void aReplicaSetWhoseSelectorMissesItsTemplateIsReportedWhileAGoodOneIsServed() {
    // the API server checks matchLabels against the template but not matchExpressions
    create(client(), replicaSet(NS, "bad", 2).editSpec()
        .withSelector(new LabelSelectorBuilder().withMatchExpressions(new LabelSelectorRequirementBuilder()
            .withKey("app").withOperator("In").withValues("not-bad").build()).build())
        .endSpec().build());
    create(client(), replicaSet(NS, "good", 2).build());
    awaitStatus("good", 2, 2, 2, 1);
    await().atMost(30, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(events("bad", "InvalidSelector")).singleElement().satisfies(e -> {
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getMessage()).contains("ReplicaSet default/bad")
              .contains("spec.template.metadata.labels").contains("does not match");
        }));
    assertThat(activePods(client(), NS, "bad")).isEmpty();
    assertThat(status("bad").getObservedGeneration()).isNull();
  }

  @Test
  void syncsNeverListPodsOrReplicaSetsFromTheApiServer() {
    EmbeddedCluster cluster = CLUSTER.cluster();
    cluster.requestLog().clear();
    create(client(), replicaSet(NS, "quiet", 4).build());
    await().atMost(30, TimeUnit.SECONDS).until(() -> readyReplicas("quiet") == 4);
    scale(client(), NS, "quiet", 1);
    await().atMost(30, TimeUnit.SECONDS).until(() -> readyReplicas("quiet") == 1 && activeInStore("quiet") == 1);

    List<RequestRecord> log = cluster.requestLog().entries();
    assertThat(log).filteredOn(r -> r.verb().equals("create") && r.resourcePath().equals("pods")).hasSize(4);
    assertThat(log).filteredOn(r -> r.verb().equals("delete") && r.resourcePath().equals("pods")).hasSize(3);
    assertThat(log).filteredOn(r -> r.verb().equals("update") && r.resourcePath().equals("replicasets/status"))
        .isNotEmpty();
    assertThat(log).filteredOn(r -> r.verb().equals("list")
        && (r.resource().equals("pods") || r.resource().equals("replicasets"))).isEmpty();
  }

  /** readyReplicas read from the server's store, bypassing HTTP. */
  private static int readyReplicas(String name) {
    return CLUSTER.cluster().store().get(ResourceTypes.REPLICA_SETS, NS, name)
        .map(o -> o.tree().path("status").path("readyReplicas").asInt(0)).orElse(0);
  }

  /** Active pods of the workload read from the server's store, bypassing HTTP. */
  private static long activeInStore(String name) {
    return CLUSTER.cluster().store().list(ResourceTypes.PODS, NS, o -> true).items().stream()
        .filter(o -> name.equals(o.labels().get("app")))
        .filter(o -> !o.terminating())
        .count();
  }
}
