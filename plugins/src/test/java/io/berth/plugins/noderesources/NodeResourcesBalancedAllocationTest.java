package io.berth.plugins.noderesources;

import static io.berth.plugins.noderesources.Fixtures.node;
import static io.berth.plugins.noderesources.Fixtures.pod;
import static io.berth.plugins.noderesources.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Cases translated from upstream's balanced_allocation_test.go (v1.36), plus Berth's own. */
class NodeResourcesBalancedAllocationTest {
  private static final String GPU = "nvidia.com/gpu";
  private static final Map<String, Object> WITH_GPU = Map.of("resources", List.of(
      Map.of("name", "cpu", "weight", 1), Map.of("name", "memory", "weight", 1),
      Map.of("name", GPU, "weight", 1)));

  /** Upstream's makeNode: cpu in milli-units, memory in bytes, optional scalars. */
  private static Node makeNode(String name, long milliCpu, long memory, String... scalars) {
    Map<String, String> alloc = res("cpu", milliCpu + "m", "memory", String.valueOf(memory),
        "pods", "100");
    alloc.putAll(res(scalars));
    return node(name, alloc);
  }

  private static Pod cpuAndMemory(String nodeName) {
    return pod(res("cpu", "1000m", "memory", "2000"), res("cpu", "2000m", "memory", "3000"))
        .on(nodeName).build();
  }

  private static Pod cpuOnly(String nodeName) {
    return pod(res("cpu", "1000m", "memory", "0"), res("cpu", "2000m", "memory", "0"))
        .on(nodeName).build();
  }

  private static Pod cpuAndMemoryAndGpu(String nodeName) {
    return pod(res("cpu", "1000m", "memory", "2000"),
        res("cpu", "2000m", "memory", "3000", GPU, "3")).on(nodeName).build();
  }

  record Case(String name, Map<String, Object> args, Pod pod, List<Node> nodes,
      List<Pod> existing, long score1, long score2) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    Map<String, Object> defaults = Map.of();
    List<Node> big = List.of(makeNode("node1", 10000, 20000), makeNode("node2", 10000, 20000));
    List<Pod> scheduled = List.of(cpuOnly("node1"), cpuAndMemory("node2"));
    // Each score is 50 + (50 + b(with the pod) - b(without it)) / 2, b = (1 - std) * 100.
    return Stream.of(
        // node1: b 100 -> 87; node2: b 100 -> 100
        new Case("nothing scheduled, resources requested, differently sized nodes", defaults,
            cpuAndMemory(null),
            List.of(makeNode("node1", 4000, 10000), makeNode("node2", 6000, 10000)), List.of(),
            68, 75),
        // node1: 85 -> 82; node2: 97 -> 95
        new Case("resources requested, pods scheduled with resources", defaults,
            cpuAndMemory(null), big, scheduled, 73, 74),
        // node1: 85 -> 82; node2: 90 -> 80
        new Case("resources requested, pods scheduled with resources, differently sized nodes",
            defaults, cpuAndMemory(null),
            List.of(makeNode("node1", 10000, 20000), makeNode("node2", 10000, 50000)), scheduled,
            73, 70),
        // node1: 50 -> 100; node2: 100 -> 50
        new Case("resources requested, pods scheduled with resources, nodes to reach min/max score",
            defaults, pod(res("memory", "2000"), res("memory", "3000")).build(),
            List.of(makeNode("node1", 3000, 5000), makeNode("node2", 3000, 5000)),
            List.of(cpuOnly("node1")), 100, 50),
        // node1: 75 -> 50; node2: 100 -> 75
        new Case("requested resources at node capacity", defaults, cpuOnly(null),
            List.of(makeNode("node1", 6000, 10000), makeNode("node2", 6000, 10000)), scheduled,
            62, 62),
        // node1: 69 -> 70; node2: 62 -> 65
        new Case("scalar resource is included in the score computation if pod requests it",
            WITH_GPU, pod(res("cpu", "0", "memory", "0", GPU, "1")).build(),
            List.of(makeNode("node1", 3500, 40000, GPU, "8"),
                makeNode("node2", 3500, 40000, GPU, "8")),
            List.of(cpuAndMemoryAndGpu("node1"), cpuAndMemory("node2")), 75, 76),
        // both: 100 -> 63, the gpu the pod does not request is left out
        new Case("scalar resource is not included if the pod does not request it", WITH_GPU,
            cpuAndMemory(null),
            List.of(makeNode("node1", 3500, 40000, GPU, "8"), makeNode("node2", 3500, 40000)),
            List.of(), 56, 56));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresMatchUpstream(Case c) {
    NodeResourcesBalancedAllocation plugin = plugin(c.args());
    List<NodeInfo> nodeInfos = NodeResourcesFitScoreTest.nodeInfos(c.nodes(), c.existing());
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, c.pod(), nodeInfos)).isEqualTo(Status.SUCCESS);

    assertThat(NodeResourcesFitScoreTest.scores(plugin, state, c.pod(), nodeInfos))
        .containsExactly(c.score1(), c.score2());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresAreTheSameWhenPreScoreWasNotCalled(Case c) {
    NodeResourcesBalancedAllocation plugin = plugin(c.args());
    List<NodeInfo> nodeInfos = NodeResourcesFitScoreTest.nodeInfos(c.nodes(), c.existing());

    assertThat(NodeResourcesFitScoreTest.scores(plugin, new CycleState(), c.pod(), nodeInfos))
        .containsExactly(c.score1(), c.score2());
  }

  @Test
  void bestEffortPodIsSkippedInPreScoreAndScoresZeroWithoutIt() {
    // kubernetes#129138: pods without requests are not spread by balance.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    NodeInfo nodeInfo = NodeInfo.of(makeNode("node1", 4000, 10000));
    Pod bestEffort = pod().build();
    assertThat(plugin.preScore(new CycleState(), bestEffort, List.of(nodeInfo)).isSkip()).isTrue();
    assertThat(plugin.score(new CycleState(), bestEffort, nodeInfo)).isZero();
  }

  @Test
  void balanceCountsPlainRequestsNotNonZeroDefaults() {
    // Existing containers without requests count 0 here (upstream useRequested), where
    // NodeResourcesFit would count 100m / 200Mi. Without the pod: cpu 1000m/2000m = 0.5,
    // memory 0 -> b 75; with a 500Mi pod: memory 0.5 -> b 100; 50 + (50 + 25) / 2 = 87.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    Node node = makeNode("node1", 2000, 1000L << 20);
    NodeInfo nodeInfo = NodeInfo.of(node, pod(res("cpu", "1")).on("node1").build(),
        pod().bareContainer().on("node1").build());
    Pod incoming = pod(res("memory", "500Mi")).build();
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, incoming, List.of(nodeInfo))).isEqualTo(Status.SUCCESS);

    assertThat(plugin.score(state, incoming, nodeInfo)).isEqualTo(87);
  }

  @Test
  void conformanceResourcesP11ScoresLikeKubeScheduler() {
    // PlacementComparisonConformanceIT's resources-p11 (600m, 6Gi), as kube-scheduler v1.36.3
    // at -v=10 scored it: res-b (4 cpu, 12Gi; 1000m and 6Gi requested before) 66, res-d
    // (10 cpu, 16Gi; 8500m and 9728Mi before) 80. The v1.32 formula gave 70 and 97, which
    // with NodeResourcesFit's 30 and 6 made Berth choose res-d where kube-scheduler chose res-b.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    long gi = 1L << 30;
    NodeInfo resB = NodeInfo.of(makeNode("res-b", 4000, 12 * gi),
        pod(res("cpu", "1000m", "memory", String.valueOf(6 * gi))).on("res-b").build());
    NodeInfo resD = NodeInfo.of(makeNode("res-d", 10000, 16 * gi),
        pod(res("cpu", "8500m", "memory", "9728Mi")).on("res-d").build());
    Pod p11 = pod(res("cpu", "600m", "memory", "6Gi")).build();
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, p11, List.of(resB, resD))).isEqualTo(Status.SUCCESS);

    assertThat(List.of(plugin.score(state, p11, resB), plugin.score(state, p11, resD)))
        .containsExactly(66L, 80L);
  }

  @Test
  void oneScoredResourceHasNoDeviation() {
    NodeResourcesBalancedAllocation plugin = plugin(Map.of("resources",
        List.of(Map.of("name", "cpu", "weight", 1))));
    NodeInfo nodeInfo = NodeInfo.of(makeNode("node1", 4000, 1000));
    Pod pod = pod(res("cpu", "3")).build();
    // b is 100 with and without the pod: the balance does not change
    assertThat(plugin.score(new CycleState(), pod, nodeInfo)).isEqualTo(75);
  }

  @Test
  void fractionsAboveOneAreCappedBeforeTheDeviation() {
    // cpu 8000m of 4000m caps at 1, memory 1000 of 1000 is 1: as balanced as the empty node,
    // 75; uncapped (2 vs 1) it would be b 50 and score 50.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    NodeInfo nodeInfo = NodeInfo.of(makeNode("node1", 4000, 1000));
    Pod pod = pod(res("cpu", "8", "memory", "1000")).build();
    assertThat(plugin.score(new CycleState(), pod, nodeInfo)).isEqualTo(75);
  }

  static NodeResourcesBalancedAllocation plugin(Map<String, Object> args) {
    return (NodeResourcesBalancedAllocation) NodeResourcesBalancedAllocation.create(args,
        new TestHandle());
  }
}
