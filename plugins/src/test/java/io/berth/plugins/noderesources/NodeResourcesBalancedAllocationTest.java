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

/** Cases translated from upstream's balanced_allocation_test.go, plus v1.32 specifics. */
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
    return Stream.of(
        new Case("best-effort pod on empty nodes is scored, not skipped, as in v1.32", defaults,
            pod().build(), List.of(makeNode("node1", 4000, 10000), makeNode("node2", 4000, 10000)),
            List.of(), 100, 100),
        new Case("nothing scheduled, resources requested, differently sized nodes", defaults,
            cpuAndMemory(null),
            List.of(makeNode("node1", 4000, 10000), makeNode("node2", 6000, 10000)), List.of(),
            87, 100),
        new Case("resources requested, pods scheduled with resources", defaults,
            cpuAndMemory(null), big, scheduled, 82, 95),
        new Case("resources requested, pods scheduled with resources, differently sized nodes",
            defaults, cpuAndMemory(null),
            List.of(makeNode("node1", 10000, 20000), makeNode("node2", 10000, 50000)), scheduled,
            82, 80),
        new Case("requested resources at node capacity", defaults, cpuOnly(null),
            List.of(makeNode("node1", 6000, 10000), makeNode("node2", 6000, 10000)), scheduled,
            50, 75),
        new Case("include scalar resource on a node for balanced resource allocation", WITH_GPU,
            pod(res("memory", "0", GPU, "1")).build(),
            List.of(makeNode("node1", 3500, 40000, GPU, "8"),
                makeNode("node2", 3500, 40000, GPU, "8")),
            List.of(cpuAndMemory("node2"), cpuAndMemoryAndGpu("node1")), 70, 65),
        new Case("node without the scalar resource should skip the scalar resource", WITH_GPU,
            cpuAndMemory(null),
            List.of(makeNode("node1", 3500, 40000, GPU, "8"), makeNode("node2", 3500, 40000)),
            List.of(), 63, 63));
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
  void balanceCountsPlainRequestsNotNonZeroDefaults() {
    // A container without requests counts 0 here (upstream useRequested), where
    // NodeResourcesFit would count 100m / 200Mi: cpu 1000m/2000m = 0.5, memory 0/1Gi = 0.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    Node node = makeNode("node1", 2000, 1L << 30);
    NodeInfo nodeInfo = NodeInfo.of(node, pod(res("cpu", "1")).on("node1").build(),
        pod().bareContainer().on("node1").build());
    Pod incoming = pod().bareContainer().build();
    CycleState state = new CycleState();
    plugin.preScore(state, incoming, List.of(nodeInfo));

    assertThat(plugin.score(state, incoming, nodeInfo)).isEqualTo(75);
  }

  @Test
  void oneScoredResourceHasNoDeviation() {
    NodeResourcesBalancedAllocation plugin = plugin(Map.of("resources",
        List.of(Map.of("name", "cpu", "weight", 1))));
    NodeInfo nodeInfo = NodeInfo.of(makeNode("node1", 4000, 1000));
    Pod pod = pod(res("cpu", "3")).build();
    assertThat(plugin.score(new CycleState(), pod, nodeInfo)).isEqualTo(100);
  }

  @Test
  void fractionsAboveOneAreCappedBeforeTheDeviation() {
    // cpu 8000m of 4000m caps at 1, memory 1000 of 1000 is 1: perfectly balanced.
    NodeResourcesBalancedAllocation plugin = plugin(Map.of());
    NodeInfo nodeInfo = NodeInfo.of(makeNode("node1", 4000, 1000));
    Pod pod = pod(res("cpu", "8", "memory", "1000")).build();
    assertThat(plugin.score(new CycleState(), pod, nodeInfo)).isEqualTo(100);
  }

  static NodeResourcesBalancedAllocation plugin(Map<String, Object> args) {
    return (NodeResourcesBalancedAllocation) NodeResourcesBalancedAllocation.create(args,
        new TestHandle());
  }
}
