package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.fault.RequestRecord;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scheduler in-process against the embedded API server over HTTP. */
class SchedulerIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  @BeforeEach
  void startCluster() {
    cluster = EmbeddedCluster.builder().start();
    client = cluster.client();
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  static Pod pod(String name, String cpu, String schedulerName) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .withNewSpec().withSchedulerName(schedulerName).addNewContainer().withName("c")
        .withImage("busybox").withNewResources().addToRequests("cpu", new Quantity(cpu))
        .addToRequests("memory", new Quantity("100Mi")).endResources().endContainer().endSpec()
        .build();
  }

  private void create(Pod pod) {
    client.pods().inNamespace("default").resource(pod).create();
  }

  private List<Pod> pods() {
    return client.pods().inNamespace("default").list().getItems();
  }

  private static Map<String, Long> cpuByNode(List<Pod> pods) {
    Map<String, Long> out = new HashMap<>();
    for (Pod p : pods) {
      if (p.getSpec().getNodeName() != null) {
        long milli = Quantity.getAmountInBytes(p.getSpec().getContainers().get(0).getResources()
            .getRequests().get("cpu")).movePointRight(3).longValueExact();
        out.merge(p.getSpec().getNodeName(), milli, Long::sum);
      }
    }
    return out;
  }

  private long bindings() {
    return cluster.requestLog().count("create", "pods/binding");
  }

  @Test
  void twoHundredPodsOnTwentyNodesAreEachBoundOnceWithinAllocatable() throws Exception {
    for (int i = 0; i < 20; i++) {
      cluster.nodes().add(NodeSpec.node("node-" + i).withCpu("4").withZone("zone-" + (i % 3)));
    }
    scheduler = new InProcessScheduler(client, null);
    for (int i = 0; i < 200; i++) {
      create(pod("p-" + i, "350m", "default-scheduler"));
    }
    await().atMost(WAIT).until(() -> pods().stream().allMatch(p -> p.getSpec().getNodeName() != null));
    assertThat(bindings()).isEqualTo(200);
    // 11 pods of 350m fit in 4 cpu; the scheduler must never overcommit a node
    assertThat(cpuByNode(pods()).values()).allSatisfy(cpu -> assertThat(cpu).isLessThanOrEqualTo(4000));
    await().atMost(WAIT).untilAsserted(() -> assertThat(client.v1().events().inNamespace("default")
        .list().getItems().stream().filter(e -> "Scheduled".equals(e.getReason())).count())
        .isEqualTo(200));
    Event one = client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "Scheduled".equals(e.getReason())).findFirst().orElseThrow();
    assertThat(one.getMessage()).matches("Successfully assigned default/p-\\d+ to node-\\d+");
    assertThat(scheduler.scrape())
        .contains("scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 200.0")
        .contains("scheduler_pending_pods{queue=\"active\"}")
        .contains("scheduler_framework_extension_point_duration_seconds_bucket{extension_point=\"Bind\"")
        .contains("scheduler_pod_scheduling_sli_duration_seconds_bucket")
        .contains("scheduler_scheduling_attempt_duration_seconds_bucket");
  }

  @Test
  void failedBindingsFreeTheNodeAndThePodIsRetried() throws Exception {
    cluster.nodes().add(NodeSpec.node("only").withCpu("1"));
    cluster.faults().failNext("create", "pods/binding", 2, 500);
    scheduler = new InProcessScheduler(client, null);
    create(pod("a", "600m", "default-scheduler"));
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").withName("a").get()
        .getSpec().getNodeName() != null);
    assertThat(bindings()).isEqualTo(3);
    // the forgotten assumptions freed the node: a second pod that fits only if they did is rejected
    // only for lack of cpu left by the first, bound pod
    create(pod("b", "600m", "default-scheduler"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition("b")).isNotNull());
    assertThat(condition("b").getMessage()).isEqualTo("0/1 nodes are available: 1 Insufficient cpu."
        + " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod..");
    assertThat(condition("b").getReason()).isEqualTo("Unschedulable");
  }

  @Test
  void aConflictOnBindingIsNotABindingTwice() throws Exception {
    cluster.nodes().add(NodeSpec.node("n1"));
    cluster.faults().failNext("create", "pods/binding", 1, 409);
    scheduler = new InProcessScheduler(client, null);
    create(pod("c", "100m", "default-scheduler"));
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").withName("c").get()
        .getSpec().getNodeName() != null);
    List<RequestRecord> binds = cluster.requestLog().entries(r -> r.resourcePath().equals("pods/binding"));
    assertThat(binds).hasSize(2);
  }

  private PodCondition condition(String pod) {
    Pod p = client.pods().inNamespace("default").withName(pod).get();
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst().orElse(null);
  }

  @Test
  void anUnschedulablePodGetsTheUpstreamMessageAndLandsWhenANodeAppears() throws Exception {
    cluster.nodes().add(NodeSpec.node("small-1").withCpu("1"));
    cluster.nodes().add(NodeSpec.node("small-2").withCpu("1"));
    scheduler = new InProcessScheduler(client, null);
    create(pod("big", "3", "default-scheduler"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(condition("big")).isNotNull());
    assertThat(condition("big").getStatus()).isEqualTo("False");
    String expected = "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are"
        + " available: 2 No preemption victims found for incoming pod..";
    assertThat(condition("big").getMessage()).isEqualTo(expected);
    await().atMost(WAIT).until(() -> client.v1().events().inNamespace("default").list().getItems()
        .stream().anyMatch(e -> "FailedScheduling".equals(e.getReason())
            && e.getMessage().equals(expected)));
    cluster.nodes().add(NodeSpec.node("large").withCpu("8"));
    await().atMost(WAIT).until(() -> "large".equals(client.pods().inNamespace("default")
        .withName("big").get().getSpec().getNodeName()));
  }

  @Test
  void aMalformedPodGetsAnEventNamingTheFieldAndOthersAreStillScheduled() throws Exception {
    cluster.nodes().add(NodeSpec.node("n1"));
    scheduler = new InProcessScheduler(client, null);
    Pod bad = new PodBuilder(pod("bad", "100m", "default-scheduler")).editSpec()
        .withNewAffinity().withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withTopologyKey("kubernetes.io/hostname").withNewLabelSelector().addNewMatchExpression()
        .withKey("app").withOperator("Near").withValues("x").endMatchExpression().endLabelSelector()
        .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
        .endSpec().build();
    create(bad);
    create(pod("good", "100m", "default-scheduler"));
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").withName("good").get()
        .getSpec().getNodeName() != null);
    await().atMost(WAIT).until(() -> client.v1().events().inNamespace("default").list().getItems()
        .stream().anyMatch(e -> "FailedScheduling".equals(e.getReason())
            && e.getInvolvedObject().getName().equals("bad")
            && e.getMessage().contains("spec.affinity.podAntiAffinity"
                + ".requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
                + ".matchExpressions[0].operator")));
    assertThat(client.pods().inNamespace("default").withName("bad").get().getSpec().getNodeName())
        .isNull();
  }

  @Test
  void malformedTaintsTolerationsAndQuantitiesAreNamedAndOthersAreStillScheduled()
      throws Exception {
    cluster.nodes().add(NodeSpec.node("good").withCpu("1"));
    // created through the client: NodeSpec refuses a malformed taint, as the API server would
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName("broken")
        .addToLabels("kubernetes.io/hostname", "broken").endMetadata().withNewSpec()
        .addNewTaint().withKey("gpu").withEffect("Sometimes").endTaint().endSpec().withNewStatus()
        .addToAllocatable(Map.of("cpu", new Quantity("8"), "memory", new Quantity("8Gi"),
            "pods", new Quantity("110")))
        .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build())
        .create();
    scheduler = new InProcessScheduler(client, null);
    create(new PodBuilder(pod("bad-toleration", "100m", "default-scheduler")).editSpec()
        .addNewToleration().withKey("gpu").withOperator("Near").withValue("x").endToleration()
        .endSpec().build());
    // fits only the broken node, by cpu: its FitError names the malformed taint
    create(pod("big", "2", "default-scheduler"));
    create(pod("small", "100m", "default-scheduler"));
    create(pod("bad-quantity", "lots", "default-scheduler"));
    await().atMost(WAIT).until(() -> "good".equals(client.pods().inNamespace("default")
        .withName("small").get().getSpec().getNodeName()));
    await().atMost(WAIT).until(() -> failedSchedulingMessage("bad-quantity")
        .contains("spec.containers[0].resources.requests.cpu"));
    await().atMost(WAIT).until(() -> failedSchedulingMessage("bad-toleration")
        .contains("spec.tolerations[0].operator: Unsupported value: \"Near\""));
    await().atMost(WAIT).until(() -> failedSchedulingMessage("big").contains(
        "1 node(s) had malformed taints: spec.taints[0].effect: Unsupported value: \"Sometimes\""));
    assertThat(failedSchedulingMessage("big")).startsWith("0/2 nodes are available:")
        .contains("1 Insufficient cpu");
    assertThat(client.pods().inNamespace("default").withName("bad-toleration").get().getSpec()
        .getNodeName()).isNull();
    assertThat(client.pods().inNamespace("default").withName("big").get().getSpec()
        .getNodeName()).isNull();
  }

  private String failedSchedulingMessage(String podName) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "FailedScheduling".equals(e.getReason())
            && e.getInvolvedObject().getName().equals(podName))
        .map(Event::getMessage).reduce((a, b) -> b).orElse("");
  }

  @Test
  void aSecondProfileSchedulesOnlyItsOwnPods() throws Exception {
    cluster.nodes().add(NodeSpec.node("n1"));
    scheduler = new InProcessScheduler(client, String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "profiles:",
        "- schedulerName: berth-a",
        "- schedulerName: berth-b"));
    create(pod("for-a", "100m", "berth-a"));
    create(pod("for-b", "100m", "berth-b"));
    create(pod("for-default", "100m", "default-scheduler"));
    await().atMost(WAIT).until(() -> pods().stream().filter(p -> p.getSpec().getNodeName() != null)
        .count() == 2);
    Map<String, String> bound = pods().stream().filter(p -> p.getSpec().getNodeName() != null)
        .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getSpec().getNodeName()));
    assertThat(bound).containsOnlyKeys("for-a", "for-b");
    await().atMost(WAIT).untilAsserted(() -> assertThat(client.v1().events().inNamespace("default")
        .list().getItems().stream().filter(e -> "Scheduled".equals(e.getReason()))
        .map(e -> e.getReportingComponent()).toList()).containsExactlyInAnyOrder("berth-a", "berth-b"));
    assertThat(client.pods().inNamespace("default").withName("for-default").get().getSpec()
        .getNodeName()).isNull();
  }
}
