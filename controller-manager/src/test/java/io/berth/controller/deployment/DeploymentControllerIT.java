package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Deployment controller (with the ReplicaSet controller and a test binder) against the embedded cluster over
 * HTTP: rollouts and their invariants, Recreate, pause/resume, history, progress deadline, adoption, bad input.
 */
class DeploymentControllerIT {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String NEVER_READY = "never-ready:1";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(50))
          .withTerminationDelay(Duration.ofMillis(100)).withNeverReadyImages(Set.of(NEVER_READY))));

  private static DeploymentHarness harness;

  @BeforeAll
  static void start() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("node-" + i).withPods(500).withCpu("100").withMemory("256Gi"));
    }
    harness = new DeploymentHarness(CLUSTER.cluster());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (harness != null) {
      harness.close();
    }
  }

  private static KubernetesClient client() {
    return CLUSTER.client();
  }

  private static void namespace(String ns) {
    client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  private static Deployment deployment(String name, int replicas, String image) {
    return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withNewSpec()
        .addNewContainer().withName("main").withImage(image).endContainer().endSpec().endTemplate().endSpec().build();
  }

  private static Deployment get(String ns, String name) {
    return client().apps().deployments().inNamespace(ns).withName(name).get();
  }

  private static Optional<DeploymentCondition> condition(Deployment d, String type) {
    return d.getStatus() == null || d.getStatus().getConditions() == null ? Optional.empty()
        : d.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** Complete as kubectl rollout status sees it. */
  private static boolean complete(String ns, String name) {
    Deployment d = get(ns, name);
    if (d == null || d.getStatus() == null || d.getStatus().getObservedGeneration() == null) {
      return false;
    }
    int replicas = d.getSpec().getReplicas();
    return d.getStatus().getObservedGeneration() >= d.getMetadata().getGeneration()
        && orZero(d.getStatus().getUpdatedReplicas()) == replicas
        && orZero(d.getStatus().getReplicas()) == replicas
        && orZero(d.getStatus().getAvailableReplicas()) == replicas;
  }

  private static int orZero(Integer i) {
    return i == null ? 0 : i;
  }

  private static List<ReplicaSet> replicaSets(String ns) {
    return client().apps().replicaSets().inNamespace(ns).list().getItems();
  }

  private static void setImage(String ns, String name, String image) {
    client().apps().deployments().inNamespace(ns).withName(name).edit(d -> new DeploymentBuilder(d).editSpec()
        .editTemplate().editSpec().editFirstContainer().withImage(image).endContainer().endSpec().endTemplate()
        .endSpec().build());
  }

  private static List<Event> events(String ns, String reason) {
    return client().v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason())).toList();
  }

  @Test
  void aDeploymentRollsOutAndReportsStatusConditionsRevisionAndEvents() {
    String ns = "basic";
    namespace(ns);
    client().apps().deployments().inNamespace(ns).resource(deployment("web", 3, "nginx:1.27")).create();
    await().atMost(WAIT).until(() -> complete(ns, "web"));
    Deployment d = get(ns, "web");
    assertThat(d.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "1");
    assertThat(condition(d, "Available")).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("MinimumReplicasAvailable");
    });
    assertThat(condition(d, "Progressing")).hasValueSatisfying(c ->
        assertThat(c.getReason()).isEqualTo("NewReplicaSetAvailable"));
    ReplicaSet first = replicaSets(ns).get(0);
    String hash = first.getMetadata().getLabels().get("pod-template-hash");
    assertThat(first.getMetadata().getName()).isEqualTo("web-" + hash);
    assertThat(first.getSpec().getSelector().getMatchLabels()).containsEntry("pod-template-hash", hash);
    assertThat(first.getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/desired-replicas", "3")
        .containsEntry("deployment.kubernetes.io/max-replicas", "4")
        .containsEntry("deployment.kubernetes.io/revision", "1");
    assertThat(client().pods().inNamespace(ns).list().getItems()).hasSize(3)
        .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry("pod-template-hash", hash));

    setImage(ns, "web", "nginx:1.28");
    await().atMost(WAIT).until(() -> complete(ns, "web")
        && replicaSets(ns).stream().filter(rs -> rs.getSpec().getReplicas() > 0).count() == 1);
    assertThat(get(ns, "web").getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");
    assertThat(replicaSets(ns)).hasSize(2);
    assertThat(events(ns, "ScalingReplicaSet")).isNotEmpty()
        .allSatisfy(e -> assertThat(e.getSource().getComponent()).isEqualTo("deployment-controller"));
  }

  @Test
  void aRollingUpdateStaysWithinMaxSurgeAndMaxUnavailable() throws Exception {
    String ns = "rolling";
    namespace(ns);
    Deployment d = new DeploymentBuilder(deployment("big", 20, "nginx:1.27")).editSpec().withNewStrategy()
        .withType("RollingUpdate").withNewRollingUpdate().withMaxSurge(new IntOrString(3))
        .withMaxUnavailable(new IntOrString(2)).endRollingUpdate().endStrategy().endSpec().build();
    client().apps().deployments().inNamespace(ns).resource(d).create();
    await().atMost(WAIT).until(() -> complete(ns, "big"));
    try (RolloutObserver observer = new RolloutObserver(client(), ns)) {
      await().atMost(WAIT).until(observer::synced);
      observer.startRecording();
      setImage(ns, "big", "nginx:1.28");
      await().atMost(WAIT).until(() -> complete(ns, "big")
          && client().pods().inNamespace(ns).list().getItems().size() == 20);
      // maxSurge bounds the ReplicaSets' replicas; the pods themselves may briefly exceed it (as upstream) while the
      // ReplicaSet controller's deletions of scaled-down pods are still in flight and the new pods already exist
      assertThat(observer.maxReplicaSetReplicas()).as("replicas at once").isLessThanOrEqualTo(23);
      assertThat(observer.maxPods()).as("pods at once").isLessThanOrEqualTo(23 + 2);
      assertThat(observer.minAvailable()).as("available at once").isGreaterThanOrEqualTo(18);
    }
    Deployment done = get(ns, "big");
    String newHash = replicaSets(ns).stream().filter(rs -> rs.getSpec().getReplicas() == 20).findFirst()
        .orElseThrow().getMetadata().getLabels().get("pod-template-hash");
    assertThat(client().pods().inNamespace(ns).list().getItems())
        .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).containsEntry("pod-template-hash", newHash));
    assertThat(replicaSets(ns)).filteredOn(rs -> !rs.getMetadata().getLabels().get("pod-template-hash")
        .equals(newHash)).allSatisfy(rs -> assertThat(rs.getSpec().getReplicas()).isZero());
    assertThat(done.getStatus().getUpdatedReplicas()).isEqualTo(20);
  }

  @Test
  void recreateNeverRunsOldAndNewPodsTogether() throws Exception {
    String ns = "recreate";
    namespace(ns);
    Deployment d = new DeploymentBuilder(deployment("db", 5, "postgres:16")).editSpec().withNewStrategy()
        .withType("Recreate").endStrategy().endSpec().build();
    client().apps().deployments().inNamespace(ns).resource(d).create();
    await().atMost(WAIT).until(() -> complete(ns, "db"));
    try (RolloutObserver observer = new RolloutObserver(client(), ns)) {
      await().atMost(WAIT).until(observer::synced);
      observer.startRecording();
      setImage(ns, "db", "postgres:17");
      await().atMost(WAIT).until(() -> complete(ns, "db")
          && client().pods().inNamespace(ns).list().getItems().size() == 5);
      assertThat(observer.templatesOverlapped()).as("old and new pods existed together").isFalse();
    }
  }

  @Test
  void aPausedDeploymentDoesNotRollOutUntilResumed() {
    String ns = "paused";
    namespace(ns);
    client().apps().deployments().inNamespace(ns).resource(deployment("app", 2, "nginx:1.27")).create();
    await().atMost(WAIT).until(() -> complete(ns, "app"));
    client().apps().deployments().inNamespace(ns).withName("app").edit(x -> new DeploymentBuilder(x).editSpec()
        .withPaused(true).endSpec().build());
    await().atMost(WAIT).until(() -> condition(get(ns, "app"), "Progressing")
        .map(c -> "DeploymentPaused".equals(c.getReason())).orElse(false));
    setImage(ns, "app", "nginx:1.28");
    await().pollDelay(Duration.ofSeconds(1)).atMost(WAIT).untilAsserted(() ->
        assertThat(replicaSets(ns)).hasSize(1));
    client().apps().deployments().inNamespace(ns).withName("app").edit(x -> new DeploymentBuilder(x).editSpec()
        .withPaused(false).endSpec().build());
    await().atMost(WAIT).until(() -> replicaSets(ns).size() == 2 && complete(ns, "app"));
  }

  @Test
  void oldReplicaSetsBeyondTheHistoryLimitAreDeleted() {
    String ns = "history";
    namespace(ns);
    Deployment d = new DeploymentBuilder(deployment("hist", 1, "nginx:1.0")).editSpec().withRevisionHistoryLimit(2)
        .endSpec().build();
    client().apps().deployments().inNamespace(ns).resource(d).create();
    await().atMost(WAIT).until(() -> complete(ns, "hist"));
    for (int version = 1; version <= 4; version++) {
      setImage(ns, "hist", "nginx:1." + version);
      int expected = version;
      await().atMost(WAIT).until(() -> complete(ns, "hist") && get(ns, "hist").getMetadata().getAnnotations()
          .get("deployment.kubernetes.io/revision").equals(Integer.toString(expected + 1)));
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(replicaSets(ns)).hasSize(3));
  }

  @Test
  void aRolloutThatNeverBecomesReadyExceedsItsProgressDeadline() {
    String ns = "deadline";
    namespace(ns);
    Deployment d = new DeploymentBuilder(deployment("stuck", 2, "nginx:1.27")).editSpec()
        .withProgressDeadlineSeconds(3).endSpec().build();
    client().apps().deployments().inNamespace(ns).resource(d).create();
    await().atMost(WAIT).until(() -> complete(ns, "stuck"));
    setImage(ns, "stuck", NEVER_READY);
    await().atMost(WAIT).until(() -> condition(get(ns, "stuck"), "Progressing")
        .map(c -> "False".equals(c.getStatus()) && "ProgressDeadlineExceeded".equals(c.getReason()))
        .orElse(false));
  }

  @Test
  void aMatchingOrphanReplicaSetIsAdoptedAndANonMatchingOneReleased() {
    String ns = "adopt";
    namespace(ns);
    Deployment template = deployment("owner", 1, "nginx:1.27");
    ReplicaSet orphan = new ReplicaSetBuilder().withNewMetadata().withName("orphan")
        .addToLabels("app", "owner").endMetadata().withNewSpec().withReplicas(0)
        .withNewSelector().addToMatchLabels("app", "owner").addToMatchLabels("extra", "x").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "owner").addToLabels("extra", "x").endMetadata()
        .withNewSpec().addNewContainer().withName("main").withImage("old:1").endContainer().endSpec().endTemplate()
        .endSpec().build();
    client().apps().replicaSets().inNamespace(ns).resource(orphan).create();
    Deployment created = client().apps().deployments().inNamespace(ns).resource(template).create();
    await().atMost(WAIT).untilAsserted(() -> assertThat(client().apps().replicaSets().inNamespace(ns)
        .withName("orphan").get().getMetadata().getOwnerReferences()).extracting(OwnerReference::getUid)
        .containsExactly(created.getMetadata().getUid()));
    await().atMost(WAIT).until(() -> complete(ns, "owner"));
    client().apps().replicaSets().inNamespace(ns).withName("orphan").edit(rs -> new ReplicaSetBuilder(rs)
        .editMetadata().withLabels(Map.of("app", "someone-else")).endMetadata().build());
    await().atMost(WAIT).untilAsserted(() -> assertThat(client().apps().replicaSets().inNamespace(ns)
        .withName("orphan").get().getMetadata().getOwnerReferences()).isNullOrEmpty());
  }

  @Test
  void anInvalidDeploymentIsReportedAndOthersAreStillServed() {
    String ns = "invalid";
    namespace(ns);
    Deployment bad = new DeploymentBuilder(deployment("bad", 1, "nginx:1.27")).editSpec().withNewStrategy()
        .withType("RollingUpdate").withNewRollingUpdate().withMaxSurge(new IntOrString("abc%")).endRollingUpdate()
        .endStrategy().endSpec().build();
    client().apps().deployments().inNamespace(ns).resource(bad).create();
    client().apps().deployments().inNamespace(ns).resource(deployment("good", 1, "nginx:1.27")).create();
    await().atMost(WAIT).until(() -> complete(ns, "good"));
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(condition(get(ns, "bad"), "ReplicaFailure")).hasValueSatisfying(c -> {
        assertThat(c.getReason()).isEqualTo(DeploymentSync.REASON_INVALID);
        assertThat(c.getMessage()).contains("spec.strategy.rollingUpdate.maxSurge");
      });
      assertThat(events(ns, DeploymentSync.REASON_INVALID)).isNotEmpty();
    });
    assertThat(replicaSets(ns)).extracting(rs -> rs.getMetadata().getLabels().get("app")).containsOnly("good");
  }
}
