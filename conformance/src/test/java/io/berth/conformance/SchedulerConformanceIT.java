package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scheduler jar against the real kube-apiserver, as the chart's ServiceAccount {@code kube-system/berth-scheduler}
 * with exactly the chart's RBAC: pods with {@code schedulerName: berth-scheduler} bind to kwok's nodes, which run them
 * (Running, Ready); one that fits nowhere gets upstream's PodScheduled=False and a FailedScheduling event; and the
 * audit log shows that the real server refused none of the scheduler's requests.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchedulerConformanceIT {

  private static final String NS = "berth-scheduling";
  private static final String USER = "system:serviceaccount:kube-system:berth-scheduler";
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Node[] NODES = {
      KwokNodes.node("sched-small", "2", "8Gi", Map.of("conformance", "scheduler")),
      KwokNodes.node("sched-medium", "4", "16Gi", Map.of("conformance", "scheduler")),
      KwokNodes.node("sched-large", "8", "32Gi", Map.of("conformance", "scheduler"))};

  private static ControlPlane plane;
  private static KubernetesClient admin;
  private static JarProcess scheduler;

  @BeforeAll
  static void startTheSchedulerJar(ControlPlane controlPlane) throws Exception {
    plane = controlPlane;
    admin = plane.admin();
    ChartRbac.apply(admin);
    KwokNodes.createReady(admin, NODES);
    Namespaces.create(admin, NS);
    scheduler = JarProcess.start("berth-scheduler", JarProcess.schedulerJar(), plane.dir().resolve("logs"),
        "--kubeconfig", plane.kubeconfig("berth-scheduler").toString(), "--scheduler-name", "berth-scheduler",
        "--leader-elect-resource-namespace", "kube-system");
    scheduler.awaitReady();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (scheduler != null) {
        scheduler.close();
      }
    } finally {
      if (admin != null) {
        Namespaces.delete(admin, NS);
        KwokNodes.delete(admin, NODES);
        admin.close();
      }
    }
  }

  private static Pod pod(String name, String cpu) {
    return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "conformance").endMetadata()
        .withNewSpec().withSchedulerName("berth-scheduler").addToNodeSelector("conformance", "scheduler")
        .addNewContainer().withName("main").withImage("registry.k8s.io/pause:3.10").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).addToRequests("memory", new Quantity("64Mi")).endResources()
        .endContainer().endSpec().build();
  }

  private static Optional<PodCondition> condition(Pod pod, String type) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null ? Optional.empty()
        : pod.getStatus().getConditions().stream().filter(c -> c.getType().equals(type)).findFirst();
  }

  @Test
  @Order(1)
  void podsNamingBerthSchedulerBindToKwokNodesWhichRunThem() {
    for (int i = 0; i < 8; i++) {
      admin.pods().inNamespace(NS).resource(pod("placed-" + i, "500m")).create();
    }
    Set<String> nodeNames = Set.of("sched-small", "sched-medium", "sched-large");
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(NS).withLabel("app", "conformance")
        .list().getItems()).hasSize(8).allSatisfy(p -> {
          assertThat(p.getSpec().getNodeName()).isIn(nodeNames);
          assertThat(p.getStatus().getPhase()).isEqualTo("Running");
          assertThat(condition(p, "Ready")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
          assertThat(condition(p, "PodScheduled")).hasValueSatisfying(c -> assertThat(c.getStatus())
              .isEqualTo("True"));
        }));
    // 4 CPU of requests over 2 + 4 + 8 cores: NodeResourcesFit's LeastAllocated and BalancedAllocation favour the
    // larger nodes, so the large node gets the most.
    Map<String, Long> perNode = admin.pods().inNamespace(NS).withLabel("app", "conformance").list().getItems()
        .stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting()));
    assertThat(perNode.get("sched-large")).as("pods per node %s", perNode)
        .isGreaterThanOrEqualTo(perNode.getOrDefault("sched-small", 0L));
    // events are written asynchronously, next to the bindings: the last one may land a moment after its pod runs
    await().atMost(WAIT).untilAsserted(() -> {
      List<Event> scheduled = admin.v1().events().inNamespace(NS).list().getItems().stream()
          .filter(e -> "Scheduled".equals(e.getReason())).toList();
      assertThat(scheduled).hasSize(8).allSatisfy(e -> assertThat(e.getReportingComponent()).isEqualTo(
          "berth-scheduler"));
    });
    // written through events.k8s.io/v1, as kube-scheduler writes them: kube-apiserver validated the strict form
    assertThat(admin.resources(io.fabric8.kubernetes.api.model.events.v1.Event.class).inNamespace(NS).list()
        .getItems().stream().filter(e -> "Scheduled".equals(e.getReason())).toList()).hasSize(8).allSatisfy(e -> {
          assertThat(e.getReportingController()).isEqualTo("berth-scheduler");
          assertThat(e.getReportingInstance()).startsWith("berth-scheduler-");
          assertThat(e.getEventTime()).isNotNull();
          assertThat(e.getDeprecatedCount()).isNull();
          assertThat(e.getAction()).isEqualTo("Binding");
        });
  }

  @Test
  @Order(2)
  void aPodThatFitsNowhereIsUnschedulableWithUpstreamsMessageAndEvent() {
    admin.pods().inNamespace(NS).resource(pod("too-big", "100")).create();
    await().atMost(WAIT).untilAsserted(() -> {
      Pod pod = admin.pods().inNamespace(NS).withName("too-big").get();
      assertThat(pod.getSpec().getNodeName()).isNull();
      assertThat(condition(pod, "PodScheduled")).hasValueSatisfying(c -> {
        assertThat(c.getStatus()).isEqualTo("False");
        assertThat(c.getReason()).isEqualTo("Unschedulable");
        assertThat(c.getMessage()).startsWith("0/").contains("3 Insufficient cpu");
      });
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.v1().events().inNamespace(NS).list().getItems())
        .anySatisfy(e -> {
          assertThat(e.getReason()).isEqualTo("FailedScheduling");
          assertThat(e.getInvolvedObject().getName()).isEqualTo("too-big");
          assertThat(e.getType()).isEqualTo("Warning");
        }));
  }

  @Test
  @Order(3)
  void theRealServerRefusedNoRequestOfTheScheduler() {
    assertThat(plane.audit().count(USER)).as("requests by %s in the audit log", USER).isPositive();
    assertThat(plane.audit().rejected(USER)).as("requests the real kube-apiserver rejected (of all refused: %s)",
        plane.audit().refused(USER)).isEmpty();
  }
}
