package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.framework.FeatureGates;
import io.berth.plugins.InTreeRegistry;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The default profile end to end on the embedded cluster: tolerations, zone spread, anti-affinity,
 * preemption and PodDisruptionBudgets, each observed through the API server.
 */
class DefaultPluginsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  @BeforeEach
  void startCluster() {
    cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(20)).withTerminationDelay(Duration.ofMillis(50)))
        .start();
    client = cluster.client();
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  private void start() throws InterruptedException {
    scheduler = new InProcessScheduler(client, null);
  }

  private void start(String featureGates) throws InterruptedException {
    scheduler = new InProcessScheduler(client, null, InTreeRegistry.create(),
        FeatureGates.parse(featureGates));
  }

  private void create(Pod pod) {
    client.pods().inNamespace("default").resource(pod).create();
  }

  private Optional<String> nodeOf(String pod) {
    Pod p = client.pods().inNamespace("default").withName(pod).get();
    return p == null ? Optional.empty() : Optional.ofNullable(p.getSpec().getNodeName());
  }

  private PodCondition scheduledCondition(String pod) {
    Pod p = client.pods().inNamespace("default").withName(pod).get();
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
        .findFirst().orElse(null);
  }

  private static PodBuilder labelled(String name, String cpu, String app) {
    return new PodBuilder(SchedulerIT.pod(name, cpu, "default-scheduler")).editMetadata()
        .addToLabels("app", app).endMetadata();
  }

  @Test
  void aPodLandsOnATaintedNodeOnlyWithAToleration() throws Exception {
    cluster.nodes().add(NodeSpec.node("gpu").withTaint("dedicated", "gpu", "NoSchedule"));
    start();
    create(SchedulerIT.pod("plain", "100m", "default-scheduler"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(scheduledCondition("plain")).isNotNull());
    assertThat(scheduledCondition("plain").getMessage())
        .isEqualTo("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."
            // upstream's own double period: the preemption message ends with one, the
            // separator adds another
            + " preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling..");
    create(new PodBuilder(SchedulerIT.pod("tolerant", "100m", "default-scheduler")).editSpec()
        .addNewToleration().withKey("dedicated").withOperator("Equal").withValue("gpu")
        .withEffect("NoSchedule").endToleration().endSpec().build());
    await().atMost(WAIT).until(() -> nodeOf("tolerant").equals(Optional.of("gpu")));
    assertThat(nodeOf("plain")).isEmpty();
  }

  @Test
  void zoneSpreadWithMaxSkewOneBalancesThreeZones() throws Exception {
    for (String zone : List.of("a", "b", "c")) {
      for (int i = 0; i < 2; i++) {
        cluster.nodes().add(NodeSpec.node("n-" + zone + i).withZone("zone-" + zone));
      }
    }
    start();
    for (int i = 0; i < 9; i++) {
      create(labelled("s" + i, "100m", "spread").editSpec()
          .addToTopologySpreadConstraints(new TopologySpreadConstraintBuilder().withMaxSkew(1)
              .withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("DoNotSchedule")
              .withLabelSelector(new LabelSelectorBuilder().addToMatchLabels("app", "spread").build())
              .build())
          .endSpec().build());
    }
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").list().getItems().stream()
        .allMatch(p -> p.getSpec().getNodeName() != null));
    Map<String, Integer> perZone = new HashMap<>();
    for (Pod p : client.pods().inNamespace("default").list().getItems()) {
      String zone = client.nodes().withName(p.getSpec().getNodeName()).get().getMetadata()
          .getLabels().get("topology.kubernetes.io/zone");
      perZone.merge(zone, 1, Integer::sum);
    }
    assertThat(perZone).containsOnly(Map.entry("zone-a", 3), Map.entry("zone-b", 3),
        Map.entry("zone-c", 3));
  }

  @Test
  void requiredAntiAffinityPutsReplicasOnDistinctHosts() throws Exception {
    for (int i = 0; i < 3; i++) {
      cluster.nodes().add(NodeSpec.node("host-" + i));
    }
    start();
    for (int i = 0; i < 4; i++) {
      create(labelled("r" + i, "100m", "db").editSpec().withNewAffinity().withNewPodAntiAffinity()
          .addNewRequiredDuringSchedulingIgnoredDuringExecution()
          .withTopologyKey("kubernetes.io/hostname").withNewLabelSelector()
          .addToMatchLabels("app", "db").endLabelSelector()
          .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
          .endSpec().build());
    }
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() != null).count() == 3);
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() == null).allMatch(p -> p.getStatus() != null
            && p.getStatus().getConditions() != null && !p.getStatus().getConditions().isEmpty()));
    List<String> hosts = client.pods().inNamespace("default").list().getItems().stream()
        .map(p -> p.getSpec().getNodeName()).filter(n -> n != null).toList();
    assertThat(hosts).doesNotHaveDuplicates().hasSize(3);
    Pod pending = client.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() == null).findFirst().orElseThrow();
    assertThat(scheduledCondition(pending.getMetadata().getName()).getMessage())
        .isEqualTo("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."
            + " preemption: 0/3 nodes are available: 3 No preemption victims found for incoming"
            + " pod..");
  }

  private void priorityClass(String name, int value) {
    client.resource(new PriorityClassBuilder().withNewMetadata().withName(name).endMetadata()
        .withValue(value).build()).create();
  }

  private Pod withPriority(String name, String cpu, String app, String priorityClass) {
    return labelled(name, cpu, app).editSpec().withPriorityClassName(priorityClass).endSpec().build();
  }

  @ParameterizedTest(name = "feature gates \"{0}\"")
  @ValueSource(strings = {"SchedulerAsyncPreemption=false", ""})
  void aHighPriorityPodPreemptsTheLowestPriorityVictimAndBindsThere(String gates)
      throws Exception {
    cluster.nodes().add(NodeSpec.node("n1").withCpu("1"));
    cluster.nodes().add(NodeSpec.node("n2").withCpu("1"));
    priorityClass("low", 10);
    priorityClass("mid", 100);
    priorityClass("high", 1000);
    start(gates);
    create(withPriority("mid-pod", "800m", "x", "mid"));
    await().atMost(WAIT).until(() -> nodeOf("mid-pod").isPresent());
    create(withPriority("low-pod", "800m", "y", "low"));
    await().atMost(WAIT).until(() -> nodeOf("low-pod").isPresent());
    String victimNode = nodeOf("low-pod").orElseThrow();
    create(withPriority("high-pod", "800m", "z", "high"));
    await().atMost(WAIT).until(() -> nodeOf("high-pod").isPresent());
    assertThat(nodeOf("high-pod")).hasValue(victimNode);
    assertThat(nodeOf("mid-pod")).isPresent();
    await().atMost(WAIT).until(() -> client.pods().inNamespace("default").withName("low-pod").get()
        == null);
    assertThat(client.v1().events().inNamespace("default").list().getItems())
        .anyMatch(e -> "Preempted".equals(e.getReason())
            && "low-pod".equals(e.getInvolvedObject().getName()));
    String metrics = scheduler.scrape();
    assertThat(metrics)
        .containsPattern("(?m)^scheduler_preemption_attempts_total [1-9]")
        .containsPattern("(?m)^scheduler_preemption_victims_count 1(\\.0)?$")
        .containsPattern("(?m)^scheduler_preemption_victims_bucket\\{le=\"1\\.0\"\\} 1(\\.0)?$");
    if (gates.equals("SchedulerAsyncPreemption=false")) {
      assertThat(metrics).doesNotContain("scheduler_preemption_goroutines_execution_total");
    } else {
      await().atMost(WAIT).untilAsserted(() -> assertThat(scheduler.scrape())
          .containsPattern("(?m)^scheduler_preemption_goroutines_execution_total"
              + "\\{result=\"success\"\\} 1(\\.0)?$")
          .containsPattern("(?m)^scheduler_preemption_goroutines_duration_seconds_count"
              + "\\{result=\"success\"\\} 1(\\.0)?$"));
    }
  }

  @Test
  void preemptionPrefersAVictimWhoseBudgetAllowsTheDisruption() throws Exception {
    cluster.nodes().add(NodeSpec.node("n1").withCpu("1"));
    cluster.nodes().add(NodeSpec.node("n2").withCpu("1"));
    priorityClass("low", 10);
    priorityClass("high", 1000);
    start();
    create(withPriority("protected", "800m", "protected", "low"));
    await().atMost(WAIT).until(() -> nodeOf("protected").isPresent());
    create(withPriority("unprotected", "800m", "free", "low"));
    await().atMost(WAIT).until(() -> nodeOf("unprotected").isPresent());
    PodDisruptionBudget pdb = client.policy().v1().podDisruptionBudget().inNamespace("default")
        .resource(new PodDisruptionBudgetBuilder().withNewMetadata().withName("keep").endMetadata()
            .withNewSpec().withMinAvailable(new io.fabric8.kubernetes.api.model.IntOrString(1))
            .withNewSelector().addToMatchLabels("app", "protected").endSelector().endSpec().build())
        .create();
    pdb.setStatus(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder()
        .withCurrentHealthy(1).withDesiredHealthy(1).withExpectedPods(1).withDisruptionsAllowed(0)
        .build());
    client.policy().v1().podDisruptionBudget().inNamespace("default").resource(pdb).updateStatus();
    // the preemptor must meet the budget's status in the scheduler's own informer, not just the server's
    var pdbs = scheduler.informers.lister(PodDisruptionBudget.class);
    await().atMost(WAIT).until(() -> {
      return pdbs.get("default", "keep").map(PodDisruptionBudget::getStatus)
          .filter(st -> st.getExpectedPods() != null && st.getExpectedPods() == 1).isPresent();
    });
    String free = nodeOf("unprotected").orElseThrow();
    create(withPriority("high-pod", "800m", "z", "high"));
    await().atMost(WAIT).until(() -> nodeOf("high-pod").isPresent());
    assertThat(nodeOf("high-pod")).hasValue(free);
    assertThat(nodeOf("protected")).isPresent();
  }
}
