package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller manager jar against the real kube-apiserver while kube-controller-manager runs every controller but
 * {@code deployment-controller} and {@code replicaset-controller} (its garbage collector, namespace and
 * serviceaccount controllers included) and kube-scheduler places the pods on kwok's nodes: Berth's Deployment and
 * ReplicaSet controllers, as the chart's ServiceAccount {@code kube-system/berth-controller-manager} with exactly the
 * chart's RBAC, roll out, update, scale, pause and resume, and adopt and release as upstream's do; the audit log
 * shows that the real server refused none of their requests.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControllerManagerConformanceIT {

  private static final String NS = "berth-controllers";
  private static final String USER = "system:serviceaccount:kube-system:berth-controller-manager";
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Node[] NODES = {
      KwokNodes.node("cm-1", "8", "32Gi", Map.of("conformance", "controller-manager")),
      KwokNodes.node("cm-2", "8", "32Gi", Map.of("conformance", "controller-manager"))};

  private static ControlPlane plane;
  private static KubernetesClient admin;
  private static JarProcess manager;

  @BeforeAll
  static void startTheControllerManagerJar(ControlPlane controlPlane) throws Exception {
    plane = controlPlane;
    admin = plane.admin();
    ChartRbac.apply(admin);
    KwokNodes.createReady(admin, NODES);
    Namespaces.create(admin, NS);
    manager = JarProcess.start("berth-controller-manager", JarProcess.controllerManagerJar(),
        plane.dir().resolve("logs"), "--kubeconfig", plane.kubeconfig("berth-controller-manager").toString(),
        "--leader-elect-resource-namespace", "kube-system");
    manager.awaitReady();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (manager != null) {
        manager.close();
      }
    } finally {
      if (admin != null) {
        Namespaces.delete(admin, NS);
        KwokNodes.delete(admin, NODES);
        admin.close();
      }
    }
  }

  private static PodTemplateSpec template(String app, String image) {
    return new PodTemplateSpecBuilder().withNewMetadata().addToLabels("app", app).endMetadata().withNewSpec()
        .addToNodeSelector("conformance", "controller-manager").addNewContainer().withName("main").withImage(image)
        .endContainer().endSpec().build();
  }

  private static Deployment deployment(String name, int replicas, String image) {
    return new DeploymentBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .withReplicas(replicas).withNewSelector().addToMatchLabels("app", name).endSelector()
        .withTemplate(template(name, image)).endSpec().build();
  }

  /**
   * A strategic-merge patch without resourceVersion: the controller writes the same Deployment's status meanwhile,
   * so an update on a read copy would meet 409 Conflict on the real server.
   */
  private static void patch(String deployment, String json) {
    admin.apps().deployments().inNamespace(NS).withName(deployment).patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        json);
  }

  private static Deployment get(String name) {
    return admin.apps().deployments().inNamespace(NS).withName(name).get();
  }

  private static Optional<DeploymentCondition> condition(Deployment d, String type) {
    return d.getStatus() == null || d.getStatus().getConditions() == null ? Optional.empty()
        : d.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst();
  }

  private static List<ReplicaSet> replicaSets(String app) {
    return admin.apps().replicaSets().inNamespace(NS).withLabel("app", app).list().getItems();
  }

  /** Complete as {@code kubectl rollout status} judges it, with {@code replicas} available. */
  private static void awaitComplete(String name, int replicas) {
    await().atMost(WAIT).untilAsserted(() -> {
      Deployment d = get(name);
      assertThat(d.getStatus()).isNotNull();
      assertThat(d.getStatus().getObservedGeneration()).isEqualTo(d.getMetadata().getGeneration());
      assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(replicas);
      assertThat(d.getStatus().getReplicas()).isEqualTo(replicas);
      assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(replicas);
      assertThat(condition(d, "Available")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
      assertThat(condition(d, "Progressing")).hasValueSatisfying(c -> assertThat(c.getReason())
          .isEqualTo("NewReplicaSetAvailable"));
    });
  }

  @Test
  @Order(1)
  void aDeploymentRollsOutUpdatesAndScalesOnKwokNodes() {
    admin.apps().deployments().inNamespace(NS).resource(deployment("web", 3, "registry.k8s.io/pause:3.10")).create();
    awaitComplete("web", 3);
    assertThat(admin.pods().inNamespace(NS).withLabel("app", "web").list().getItems()).hasSize(3)
        .allSatisfy(p -> {
          assertThat(p.getStatus().getPhase()).isEqualTo("Running");
          assertThat(p.getSpec().getNodeName()).startsWith("cm-");
        });

    patch("web", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
        + "\"image\":\"registry.k8s.io/pause:3.9\"}]}}}}");
    awaitComplete("web", 3);
    await().atMost(WAIT).untilAsserted(() -> {
      List<ReplicaSet> sets = replicaSets("web");
      assertThat(sets).hasSize(2);
      assertThat(sets).filteredOn(rs -> rs.getSpec().getReplicas() == 3).singleElement()
          .satisfies(rs -> assertThat(rs.getMetadata().getAnnotations())
              .containsEntry("deployment.kubernetes.io/revision", "2"));
      assertThat(sets).filteredOn(rs -> rs.getSpec().getReplicas() == 0).hasSize(1);
    });
    assertThat(get("web").getMetadata().getAnnotations()).containsEntry("deployment.kubernetes.io/revision", "2");

    admin.apps().deployments().inNamespace(NS).withName("web").scale(5);
    awaitComplete("web", 5);
    admin.apps().deployments().inNamespace(NS).withName("web").scale(2);
    awaitComplete("web", 2);
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(NS).withLabel("app", "web").list()
        .getItems()).hasSize(2));
  }

  @Test
  @Order(2)
  void aPausedDeploymentMakesNoReplicaSetUntilResumed() {
    admin.apps().deployments().inNamespace(NS).resource(deployment("paused", 2, "registry.k8s.io/pause:3.10"))
        .create();
    awaitComplete("paused", 2);
    patch("paused", "{\"spec\":{\"paused\":true}}");
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition(get("paused"), "Progressing"))
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("DeploymentPaused")));
    patch("paused", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
        + "\"image\":\"registry.k8s.io/pause:3.9\"}]}}}}");
    await().atMost(WAIT).until(() -> get("paused").getStatus().getObservedGeneration()
        .equals(get("paused").getMetadata().getGeneration()));
    assertThat(replicaSets("paused")).as("no rollout while paused").hasSize(1);

    patch("paused", "{\"spec\":{\"paused\":false}}");
    awaitComplete("paused", 2);
    assertThat(replicaSets("paused")).hasSize(2);
  }

  @Test
  @Order(3)
  void aReplicaSetAdoptsMatchingOrphansAndReleasesAPodWhoseLabelsNoLongerMatch() {
    for (int i = 0; i < 2; i++) {
      admin.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("orphan-" + i)
          .addToLabels("app", "adopt").endMetadata().withSpec(template("adopt", "registry.k8s.io/pause:3.10")
              .getSpec()).build()).create();
    }
    // The orphans must be in the controller's cache and Ready before the ReplicaSet appears: otherwise it creates
    // replicas for the unseen orphan and, once it adopts it, deletes the youngest not-yet-ready pod — possibly that one.
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(NS).withLabel("app", "adopt").list()
        .getItems()).hasSize(2).allSatisfy(p -> assertThat(p.getStatus().getConditions())
            .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Ready=True"))));
    ReplicaSet rs = admin.apps().replicaSets().inNamespace(NS).resource(new ReplicaSetBuilder().withNewMetadata()
        .withName("adopter").endMetadata().withNewSpec().withReplicas(3).withNewSelector()
        .addToMatchLabels("app", "adopt").endSelector().withTemplate(template("adopt",
            "registry.k8s.io/pause:3.10")).endSpec().build()).create();
    await().atMost(WAIT).untilAsserted(() -> {
      List<Pod> pods = admin.pods().inNamespace(NS).withLabel("app", "adopt").list().getItems();
      assertThat(pods).hasSize(3).allSatisfy(p -> assertThat(p.getMetadata().getOwnerReferences())
          .singleElement().satisfies(ref -> {
            assertThat(ref.getUid()).isEqualTo(rs.getMetadata().getUid());
            assertThat(ref.getController()).isTrue();
            assertThat(ref.getBlockOwnerDeletion()).isTrue();
          }));
      assertThat(pods).extracting(p -> p.getMetadata().getName()).contains("orphan-0", "orphan-1");
      assertThat(admin.apps().replicaSets().inNamespace(NS).withName("adopter").get().getStatus()
          .getReadyReplicas()).isEqualTo(3);
    });

    admin.pods().inNamespace(NS).withName("orphan-0").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"metadata\":{\"labels\":{\"app\":\"released\"}}}");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(admin.pods().inNamespace(NS).withName("orphan-0").get().getMetadata().getOwnerReferences())
          .isNullOrEmpty();
      assertThat(admin.pods().inNamespace(NS).withLabel("app", "adopt").list().getItems()).hasSize(3);
    });
  }

  @Test
  @Order(4)
  void aDeploymentAdoptsAnOrphanReplicaSetWithItsTemplateInsteadOfMakingOne() {
    admin.apps().replicaSets().inNamespace(NS).resource(new ReplicaSetBuilder().withNewMetadata()
        .withName("orphan-set").addToLabels("app", "inherit").endMetadata().withNewSpec().withReplicas(1)
        .withNewSelector().addToMatchLabels("app", "inherit").endSelector().withTemplate(template("inherit",
            "registry.k8s.io/pause:3.10")).endSpec().build()).create();
    // Once Berth's ReplicaSet controller has made the orphan's pod ready, the jar's shared informers hold the orphan:
    // the Deployment created next cannot be synced before its ReplicaSet is seen (which would make a second one).
    await().atMost(WAIT).until(() -> {
      ReplicaSet orphan = admin.apps().replicaSets().inNamespace(NS).withName("orphan-set").get();
      return orphan.getStatus() != null && Integer.valueOf(1).equals(orphan.getStatus().getReadyReplicas());
    });
    Deployment d = admin.apps().deployments().inNamespace(NS).resource(deployment("inherit", 2,
        "registry.k8s.io/pause:3.10")).create();
    awaitComplete("inherit", 2);
    assertThat(replicaSets("inherit")).singleElement().satisfies(rs -> {
      assertThat(rs.getMetadata().getName()).isEqualTo("orphan-set");
      OwnerReference ref = rs.getMetadata().getOwnerReferences().get(0);
      assertThat(ref.getUid()).isEqualTo(d.getMetadata().getUid());
      assertThat(ref.getKind()).isEqualTo("Deployment");
      assertThat(rs.getSpec().getReplicas()).isEqualTo(2);
    });
  }

  @Test
  @Order(5)
  void theRealServerRefusedNoRequestOfTheControllerManager() {
    assertThat(plane.audit().count(USER)).as("requests by %s in the audit log", USER).isPositive();
    assertThat(plane.audit().rejected(USER)).as("requests the real kube-apiserver rejected (of all refused: %s)",
        plane.audit().refused(USER)).isEmpty();
  }
}
