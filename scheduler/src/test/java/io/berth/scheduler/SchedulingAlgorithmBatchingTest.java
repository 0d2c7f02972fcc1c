package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Framework;
import io.berth.framework.NodeHints;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.Status;
import io.berth.framework.runtime.FrameworkRuntime;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.framework.testing.ListNodeInfoLister;
import io.berth.plugins.InTreeRegistry;
import io.berth.plugins.nodeports.NodePorts;
import io.berth.plugins.noderesources.NodeResourcesFit;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The scheduling algorithm with OpportunisticBatching on and off, over an in-memory snapshot. */
class SchedulingAlgorithmBatchingTest {
  private final AtomicInteger filterCalls = new AtomicInteger();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<NodeInfo> nodes = new ArrayList<>();
  private final ListNodeInfoLister[] snapshot = new ListNodeInfoLister[1];

  /** Counts Filter calls; signs nothing of its own. */
  final class CountingFilter implements FilterPlugin, SignPlugin {
    @Override
    public String name() {
      return "Counting";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
      filterCalls.incrementAndGet();
      return Status.SUCCESS;
    }

    @Override
    public SignResult signPod(Pod pod) {
      return SignResult.none();
    }
  }

  /** Filters like CountingFilter but cannot sign: batching is off for its profile. */
  final class UnsignedFilter implements FilterPlugin {
    @Override
    public String name() {
      return "Unsigned";
    }

    @Override
    public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
      return Status.SUCCESS;
    }
  }

  private Framework framework(boolean batching, boolean unsignedPlugin) {
    Registry plugins = InTreeRegistry.create().register("Counting", (a, h) -> new CountingFilter())
        .register("Unsigned", (a, h) -> new UnsignedFilter());
    // Counting first: it sees every Filter call, including those the others then reject
    List<PluginRef> refs = new ArrayList<>(List.of(PluginRef.of("PrioritySort"),
        PluginRef.of("Counting"), PluginRef.of(NodePorts.NAME), PluginRef.of(NodeResourcesFit.NAME),
        PluginRef.of("DefaultBinder")));
    if (unsignedPlugin) {
      refs.add(PluginRef.of("Unsigned"));
    }
    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        new PluginSet(refs, List.of()), Map.of(), OptionalInt.of(100));
    snapshot[0] = new ListNodeInfoLister(nodes);
    return FrameworkRuntime.builder(plugins, profile)
        .featureGates(FeatureGates.parse("OpportunisticBatching=" + batching))
        .parallelizer(new io.berth.framework.runtime.DefaultParallelizer(1))
        .snapshot(() -> snapshot[0]).batchMetrics(new SchedulerMetrics(registry)).build();
  }

  private void addNodes(int n) {
    for (int i = 0; i < n; i++) {
      nodes.add(NodeInfo.of(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata()
          .withNewStatus().addToAllocatable("cpu", new Quantity("4"))
          .addToAllocatable("memory", new Quantity("8Gi"))
          .addToAllocatable("pods", new Quantity("110")).endStatus().build()));
    }
  }

  private static Pod pod(String name, int hostPort) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid(name)
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).endResources()
        .addNewPort().withContainerPort(hostPort).withHostPort(hostPort).endPort().endContainer()
        .endSpec().build();
  }

  /** Schedules the pods one per cycle, assuming each onto its node as the scheduler does. */
  private List<String> scheduleAll(Framework fw, List<Pod> pods) {
    SchedulingAlgorithm algo = new SchedulingAlgorithm(100, new OpportunisticBatchingIT.ConstantRandom());
    List<String> out = new ArrayList<>();
    long cycle = 0;
    for (Pod p : pods) {
      String host = algo.schedulePod(fw, new CycleState(), p, snapshot[0], ++cycle)
          .suggestedHost();
      out.add(host);
      Pod assumed = new PodBuilder(p).editSpec().withNodeName(host).endSpec().build();
      snapshot[0].get(host).orElseThrow().addPod(PodInfo.of(assumed));
    }
    return out;
  }

  private static List<Pod> wholeNodePods(int n) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      pods.add(pod("p" + i, 8080));
    }
    return pods;
  }

  private double scraped(String series) {
    String scrape = registry.scrape();
    var m = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(series)
        + " (\\S+)$").matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  @Test
  void identicalWholeNodePodsFilterOnlyTheHintAndThePreviousNode() {
    addNodes(10);
    Framework fw = framework(true, false);
    List<String> placed = scheduleAll(fw, wholeNodePods(3));
    // pod 1: a full cycle over 10 nodes; pods 2 and 3: the previous node (rejected) + the hint
    assertThat(filterCalls.get()).isEqualTo(10 + 2 + 2);
    assertThat(placed).doesNotHaveDuplicates();
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_used\"}")).isEqualTo(2);
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"no_hint\"}")).isEqualTo(1);
  }

  @Test
  void placementsWithBatchingEqualThoseOfFullCyclesWithTheSameTieBreak() {
    addNodes(20);
    List<String> on = scheduleAll(framework(true, false), wholeNodePods(20));
    nodes.clear();
    addNodes(20);
    List<String> off = scheduleAll(framework(false, false), wholeNodePods(20));
    assertThat(on).isEqualTo(off).doesNotHaveDuplicates();
  }

  @Test
  void aSignatureChangeFlushesTheBatchAndTheNextEqualPodReusesTheNewOne() {
    addNodes(5);
    Framework fw = framework(true, false);
    // a and b differ in host port (pod_incompatible); c equals b and b's node rejects it: a hit
    scheduleAll(fw, List.of(pod("a", 80), pod("b", 81), pod("c", 81)));
    assertThat(scraped("scheduler_batch_cache_flushed_total{profile=\"default-scheduler\","
        + "reason=\"pod_incompatible\"}")).isEqualTo(1);
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_used\"}")).isEqualTo(1);
  }

  @Test
  void aPodThatStillFitsThePreviousNodeFlushesAsNodeNotFull() {
    addNodes(5);
    Framework fw = framework(true, false);
    // no host port: many pods fit one node, so the previous order is stale
    scheduleAll(fw, List.of(pod("a", 0), pod("b", 0)));
    assertThat(scraped("scheduler_batch_cache_flushed_total{profile=\"default-scheduler\","
        + "reason=\"node_not_full\"}")).isEqualTo(1);
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_used\"}")).isZero();
  }

  @Test
  void aHintThatNoLongerFitsFallsBackToTheFullCycle() {
    addNodes(6);
    Framework fw = framework(true, false);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(100, new OpportunisticBatchingIT.ConstantRandom());
    String first = algo.schedulePod(fw, new CycleState(), pod("p0", 8080), snapshot[0], 1)
        .suggestedHost();
    snapshot[0].get(first).orElseThrow().addPod(PodInfo.of(new PodBuilder(pod("p0", 8080))
        .editSpec().withNodeName(first).endSpec().build()));
    // the ties go to the latest node: n5 first, so the hint for the next pod is n4
    assertThat(first).isEqualTo("n5");
    snapshot[0].get("n4").orElseThrow().addPod(PodInfo.of(new PodBuilder(pod("other", 8080))
        .editSpec().withNodeName("n4").endSpec().build()));
    String second = algo.schedulePod(fw, new CycleState(), pod("p1", 8080), snapshot[0], 2)
        .suggestedHost();
    assertThat(second).isEqualTo("n3");
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_not_used\"}")).isEqualTo(1);
  }

  @Test
  void aCycleOfAnotherProfileInBetweenBreaksTheBatch() {
    addNodes(6);
    Framework fw = framework(true, false);
    SchedulingAlgorithm algo = new SchedulingAlgorithm(100, new OpportunisticBatchingIT.ConstantRandom());
    String first = algo.schedulePod(fw, new CycleState(), pod("p0", 8080), snapshot[0], 1)
        .suggestedHost();
    snapshot[0].get(first).orElseThrow().addPod(PodInfo.of(new PodBuilder(pod("p0", 8080))
        .editSpec().withNodeName(first).endSpec().build()));
    // cycle 2 went to a pod of another profile
    algo.schedulePod(fw, new CycleState(), pod("p1", 8080), snapshot[0], 3);
    assertThat(scraped("scheduler_batch_cache_flushed_total{profile=\"default-scheduler\","
        + "reason=\"pod_skipped\"}")).isEqualTo(1);
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_used\"}")).isZero();
  }

  @Test
  void aProfileWithAPluginThatCannotSignNeverBatches() {
    addNodes(4);
    Framework fw = framework(true, true);
    scheduleAll(fw, wholeNodePods(3));
    assertThat(scraped("scheduler_batch_attempts_total{profile=\"default-scheduler\","
        + "result=\"hint_used\"}")).isZero();
    assertThat(scraped("scheduler_batch_cache_flushed_total{profile=\"default-scheduler\","
        + "reason=\"pod_not_batchable\"}")).isEqualTo(3);
  }

  @Test
  void withTheGateOffTheProfileHasNoBatch() {
    addNodes(4);
    Framework fw = framework(false, false);
    assertThat(fw.nodeHints()).isSameAs(NodeHints.DISABLED);
    scheduleAll(fw, wholeNodePods(3));
    // every pod runs a full cycle over all 4 nodes
    assertThat(filterCalls.get()).isEqualTo(4 + 4 + 4);
    assertThat(registry.scrape()).doesNotContain("scheduler_batch");
  }
}
