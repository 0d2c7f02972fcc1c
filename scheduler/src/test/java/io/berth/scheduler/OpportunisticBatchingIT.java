package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.framework.FeatureGates;
import io.berth.plugins.InTreeRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * OpportunisticBatching end to end: the scheduler in-process against the embedded API server
 * over HTTP, 500 identical pods that each need a whole node (host port 8080) on 500 nodes.
 */
class OpportunisticBatchingIT {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int NODES = 500;

  /**
   * Batching needs a profile without default topology spreading (upstream's documented
   * prerequisite: PodTopologySpread makes every pod unsignable otherwise); every node is
   * evaluated and Filter runs on one worker so that both runs see the same node order.
   */
  static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "parallelism: 1",
      "percentageOfNodesToScore: 100",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  pluginConfig:",
      "  - name: PodTopologySpread",
      "    args: {defaultingType: List}");

  /** Ties always go the same way: reservoir sampling keeps the last, the heap the latest. */
  static final class ConstantRandom implements RandomGenerator {
    @Override
    public long nextLong() {
      return 0;
    }

    @Override
    public int nextInt() {
      return 0;
    }

    @Override
    public int nextInt(int bound) {
      return 0;
    }
  }

  static Pod wholeNodePod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .addToLabels("app", "batch").endMetadata()
        .withNewSpec().addNewContainer().withName("c").withImage("busybox")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).endResources()
        .addNewPort().withContainerPort(8080).withHostPort(8080).endPort().endContainer()
        .endSpec().build();
  }

  private record Run(Map<String, String> placements, String metrics) {}

  private static Run run(boolean batching) throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      KubernetesClient client = cluster.client();
      for (int i = 0; i < NODES; i++) {
        cluster.nodes().add(NodeSpec.node(String.format("node-%03d", i)));
      }
      FeatureGates gates = FeatureGates.parse("OpportunisticBatching=" + batching);
      try (InProcessScheduler scheduler = new InProcessScheduler(client, CONFIG,
          InTreeRegistry.create(), gates, new ConstantRandom())) {
        // every node in the scheduler's cache before the first pod, so both runs see all of them
        await().atMost(WAIT).until(() -> scheduler.assembly.cache().nodeCount() == NODES);
        for (int i = 0; i < NODES; i++) {
          client.pods().inNamespace("default").resource(wholeNodePod(String.format("p-%03d", i)))
              .create();
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> client.pods()
            .inNamespace("default").list().getItems().stream()
            .allMatch(p -> p.getSpec().getNodeName() != null));
        Map<String, String> placements = new TreeMap<>();
        for (Pod p : client.pods().inNamespace("default").list().getItems()) {
          placements.put(p.getMetadata().getName(), p.getSpec().getNodeName());
        }
        return new Run(placements, scheduler.scrape());
      }
    }
  }

  private static double sample(String scrape, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  @Test
  void fiveHundredWholeNodePodsAllBindWithBatchHitsAndTheSamePlacementsAsWithoutBatching()
      throws Exception {
    Run on = run(true);
    assertThat(on.placements()).hasSize(NODES);
    // one pod per node: every node used exactly once
    assertThat(new java.util.HashSet<>(on.placements().values())).hasSize(NODES);
    double hits = sample(on.metrics(),
        "scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"hint_used\"}");
    assertThat(hits).isGreaterThan(NODES / 2.0);
    assertThat(on.metrics())
        .contains("scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"no_hint\"}")
        .contains("scheduler_get_node_hint_duration_seconds_bucket{hinted=\"hint\"")
        .contains("scheduler_store_schedule_results_duration_seconds_count{profile=\"default-scheduler\"}")
        .contains("scheduler_framework_extension_point_duration_seconds_count{extension_point=\"Sign\","
            + "profile=\"default-scheduler\",status=\"Success\"} " + NODES + "\n");

    Run off = run(false);
    assertThat(off.metrics()).doesNotContain("scheduler_batch_attempts_total");
    assertThat(on.placements()).isEqualTo(off.placements());
    List<String> nodes = List.copyOf(on.placements().values());
    assertThat(nodes).doesNotHaveDuplicates();
  }
}
