package io.berth.deploy.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gangs placed by topology, end to end through both daemon jars as the chart runs them (a profile with
 * Coscheduling and TopologyPlacement, {@code --controllers=*,podgroup}), each as its chart ServiceAccount with the
 * RBAC authorizer enforcing, on two zones of 4 CPUs: a gang larger than any zone waits with the reason naming the
 * largest zone; a 1.36 Workload API gang with a zone key lands in one zone and its PodGroup becomes
 * {@code PodGroupScheduled}; a scheduler-plugins gang with the topology annotation lands in the other zone and its
 * PodGroup moves Pending → Scheduling → Running. No request of either daemon is denied.
 */
class GangPlacementJarsIT {
  private static final String NS = "default";
  private static final String ZONE = "topology.kubernetes.io/zone";
  private static final Path CRDS = Path.of(System.getProperty("berth.deployDir", ".")).resolve("crds");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String V1ALPHA1 = "scheduling.x-k8s.io/v1alpha1";
  private static final String V1ALPHA2 = "scheduling.k8s.io/v1alpha2";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> ChartDaemons.clusterWithRbac(Duration.ofMillis(50)));

  @TempDir
  Path dir;

  private ChartDaemons chart;

  @AfterEach
  void stopDaemons() throws Exception {
    if (chart != null) {
      chart.close();
    }
  }

  @Test
  void gangsLandInOneZoneWaitWithTheReasonAndTheirPodGroupsMoveToRunning() throws Exception {
    EmbeddedCluster cluster = CLUSTER.cluster();
    KubernetesClient admin = CLUSTER.client();
    Map<String, Object> sets = new LinkedHashMap<>();
    sets.put("controllerManager.enabled", true);
    sets.put("controllerManager.controllers[0]", "*");
    sets.put("controllerManager.controllers[1]", "podgroup");
    sets.put("scheduler.config.profiles[0].schedulerName", "berth-scheduler");
    sets.put("scheduler.config.profiles[0].plugins.multiPoint.enabled[0].name", "Coscheduling");
    sets.put("scheduler.config.profiles[0].plugins.multiPoint.enabled[1].name", "TopologyPlacement");
    sets.put("scheduler.config.profiles[0].plugins.multiPoint.disabled[0].name", "PrioritySort");
    sets.put("scheduler.config.profiles[0].pluginConfig[0].name", "Coscheduling");
    sets.put("scheduler.config.profiles[0].pluginConfig[0].args.podGroupBackoffSeconds", 1);
    chart = ChartDaemons.install(cluster, admin, ChartRelease.render(ChartDaemons.NAMESPACE, sets), dir,
        "GangPlacementJarsIT");
    for (String f : List.of("scheduling.x-k8s.io_podgroups.yaml", "scheduling.k8s.io_podgroups.yaml")) {
      CustomResourceDefinition crd = admin.apiextensions().v1().customResourceDefinitions()
          .load(CRDS.resolve(f).toFile()).item();
      admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
    for (String zone : List.of("zone-a", "zone-b")) {
      for (int i = 1; i <= 2; i++) {
        cluster.nodes().add(NodeSpec.node(zone + "-" + i).withCpu("2").withZone(zone));
      }
    }

    DaemonProcess scheduler = chart.startScheduler();
    DaemonProcess controllerManager = chart.startControllerManager();
    scheduler.awaitSecurePort();
    controllerManager.awaitSecurePort();

    // 6 CPUs fit the cluster's 8 but neither zone's 4: the gang waits, saying which zone is largest.
    workloadGroup("huge", 6);
    for (int i = 0; i < 6; i++) {
      pod("huge-" + i, p -> p.editSpec().withNewSchedulingGroup().withPodGroupName("huge").endSchedulingGroup()
          .endSpec());
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.v1().events().inNamespace(NS).list().getItems())
        .anyMatch(e -> "FailedScheduling".equals(e.getReason()) && e.getInvolvedObject().getName()
            .startsWith("huge-") && e.getMessage().contains("PodGroup \"default/huge\" needs one " + ZONE
            + " domain for 6 of its 6 pods to place, and none can hold them: the largest, \"zone-a\" (2 nodes, "
            + "cpu 4")));
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition("huge")).containsEntry("status", "False")
        .containsEntry("reason", "Unschedulable"));
    assertThat(condition("huge").get("message").toString()).contains("0 of minCount 6 pods are on nodes")
        .contains("none can hold them");
    assertThat(nodesOf("huge-")).isEmpty();
    for (int i = 0; i < 6; i++) {
      admin.pods().inNamespace(NS).withName("huge-" + i).withGracePeriod(0).delete();
    }
    await().atMost(WAIT).until(() -> admin.pods().inNamespace(NS).list().getItems().isEmpty());

    // A Workload API gang of 4 with a zone key: one zone (the tie on fit and size goes to the name: zone-a).
    workloadGroup("ring", 4);
    for (int i = 0; i < 4; i++) {
      pod("ring-" + i, p -> p.editSpec().withNewSchedulingGroup().withPodGroupName("ring").endSchedulingGroup()
          .endSpec());
    }
    await().atMost(WAIT).until(() -> nodesOf("ring-").size() == 4);
    assertThat(zonesOf(nodesOf("ring-"))).containsExactly("zone-a");
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition("ring")).containsEntry("status", "True")
        .containsEntry("reason", "Scheduled"));

    // A scheduler-plugins gang with the topology annotation: zone-a is full, so zone-b; its status moves on.
    List<String> phases = new CopyOnWriteArrayList<>();
    var pluginGroups = admin.genericKubernetesResources(V1ALPHA1, "PodGroup").inNamespace(NS);
    try (Watch ignored = pluginGroups.watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource r) {
        Object status = r.getAdditionalProperties().get("status");
        Object phase = status instanceof Map<?, ?> m ? m.get("phase") : null;
        if (phase != null && (phases.isEmpty() || !phases.get(phases.size() - 1).equals(phase))) {
          phases.add(phase.toString());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      pluginGroups.resource(new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA1).withKind("PodGroup")
          .withNewMetadata().withName("trainers").withNamespace(NS).addToAnnotations(
              "scheduling.x-k8s.io/topology-key", ZONE).endMetadata()
          .addToAdditionalProperties("spec", Map.of("minMember", 3)).build()).create();
      await().atMost(WAIT).until(() -> phases.contains("Pending"));
      for (int i = 0; i < 3; i++) {
        pod("trainer-" + i, p -> p.editMetadata().addToLabels("scheduling.x-k8s.io/pod-group", "trainers")
            .endMetadata());
      }
      await().atMost(WAIT).until(() -> phases.contains("Running"));
      assertThat(phases).containsSubsequence("Pending", "Scheduling", "Running");
    }
    assertThat(zonesOf(nodesOf("trainer-"))).containsExactly("zone-b");
    assertThat(admin.v1().events().inNamespace(NS).list().getItems()).anyMatch(e -> "Running".equals(e.getReason())
        && "trainers".equals(e.getInvolvedObject().getName()) && "podgroup-controller".equals(
            e.getSource() == null ? null : e.getSource().getComponent()));

    assertThat(scheduler.alive()).as("scheduler still running; output:\n%s", scheduler.output()).isTrue();
    assertThat(controllerManager.alive()).as("controller manager running; output:\n%s", controllerManager.output())
        .isTrue();
    for (String sa : List.of(chart.schedulerServiceAccount(), chart.controllerManagerServiceAccount())) {
      assertThat(chart.denied(sa)).as("requests of %s denied", sa).isEmpty();
    }
  }

  private static void workloadGroup(String name, int minCount) {
    CLUSTER.client().genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace(NS).resource(
        new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA2).withKind("PodGroup").withNewMetadata()
            .withName(name).withNamespace(NS).endMetadata().addToAdditionalProperties("spec", Map.of(
                "schedulingPolicy", Map.of("gang", Map.of("minCount", minCount)),
                "schedulingConstraints", Map.of("topology", List.of(Map.of("key", ZONE)))))
            .build()).create();
  }

  private static void pod(String name, UnaryOperator<PodBuilder> edit) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata().withNewSpec()
        .withSchedulerName("berth-scheduler").addNewContainer().withName("c").withImage("pause").withNewResources()
        .addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec();
    CLUSTER.client().pods().inNamespace(NS).resource(edit.apply(b).build()).create();
  }

  private static List<String> nodesOf(String prefix) {
    return CLUSTER.client().pods().inNamespace(NS).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(prefix)).map(Pod::getSpec)
        .map(s -> s.getNodeName()).filter(Objects::nonNull).toList();
  }

  private static Set<String> zonesOf(List<String> nodes) {
    Set<String> zones = new HashSet<>();
    for (String n : nodes) {
      zones.add(CLUSTER.client().nodes().withName(n).get().getMetadata().getLabels().get(ZONE));
    }
    return zones;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> condition(String group) {
    GenericKubernetesResource g = CLUSTER.client().genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace(NS)
        .withName(group).get();
    Object status = g.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return Map.of();
    }
    return conditions.stream().map(c -> (Map<String, Object>) c).filter(c -> "PodGroupScheduled".equals(
        c.get("type"))).findFirst().orElse(Map.of());
  }
}
