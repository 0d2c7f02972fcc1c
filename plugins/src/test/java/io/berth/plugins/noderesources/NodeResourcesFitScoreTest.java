package io.berth.plugins.noderesources;

import static io.berth.plugins.noderesources.Fixtures.node;
import static io.berth.plugins.noderesources.Fixtures.pod;
import static io.berth.plugins.noderesources.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scoring cases translated from upstream's least_allocated_test.go, most_allocated_test.go,
 * requested_to_capacity_ratio_test.go and fit_test.go (TestFitScore).
 */
class NodeResourcesFitScoreTest {
  private static final String EXT = "intel.com/foo";

  record Case(String name, Map<String, Object> args, Pod pod, List<Node> nodes,
      List<Pod> existing, List<Long> want) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Map<String, Object> strategy(String type, Object resources) {
    return Map.of("scoringStrategy", Map.of("type", type, "resources", resources));
  }

  private static Map<String, Object> ratio(Object resources, List<Map<String, Object>> shape) {
    return Map.of("scoringStrategy", Map.of("type", "RequestedToCapacityRatio",
        "resources", resources, "requestedToCapacityRatio", Map.of("shape", shape)));
  }

  private static List<Map<String, Object>> shape(long... utilizationScore) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < utilizationScore.length; i += 2) {
      out.add(Map.of("utilization", utilizationScore[i], "score", utilizationScore[i + 1]));
    }
    return out;
  }

  private static List<Map<String, Object>> weights(Object... nameWeight) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < nameWeight.length; i += 2) {
      out.add(Map.of("name", nameWeight[i], "weight", nameWeight[i + 1]));
    }
    return out;
  }

  private static final List<Map<String, Object>> DEFAULT = weights("cpu", 1, "memory", 1);
  private static final List<Map<String, Object>> WITH_EXT =
      weights("cpu", 1, "memory", 1, EXT, 1);

  private static Node n(String name, String cpu, String memory, String... more) {
    Map<String, String> alloc = res("cpu", cpu, "memory", memory);
    alloc.putAll(res(more));
    return node(name, alloc);
  }

  private static Pod req(String cpu, String memory) {
    return pod(res("cpu", cpu, "memory", memory)).build();
  }

  private static Pod onNode(String node, String cpu, String memory) {
    return pod(res("cpu", cpu, "memory", memory)).on(node).build();
  }

  private static Pod twoContainers() {
    return pod(res("cpu", "1000", "memory", "2000"), res("cpu", "2000", "memory", "3000")).build();
  }

  private static Case c(String name, Map<String, Object> args, Pod pod, List<Node> nodes,
      List<Pod> existing, long... want) {
    List<Long> scores = new ArrayList<>();
    for (long w : want) {
      scores.add(w);
    }
    return new Case(name, args, pod, nodes, existing, scores);
  }

  static Stream<Case> leastAllocatedCases() {
    Map<String, Object> least = strategy("LeastAllocated", DEFAULT);
    List<Node> small = List.of(n("node1", "4000", "10000"), n("node2", "4000", "10000"));
    List<Node> sized = List.of(n("node1", "4000", "10000"), n("node2", "6000", "10000"));
    List<Node> big = List.of(n("node1", "10000", "20000"), n("node2", "10000", "20000"));
    return Stream.of(
        c("nothing scheduled, nothing requested", least, pod().build(), small, List.of(),
            100, 100),
        c("nothing scheduled, resources requested, differently sized nodes", least,
            twoContainers(), sized, List.of(), 37, 50),
        c("no resources requested, pods scheduled", least, pod().build(), small,
            List.of(pod().on("node1").build(), pod().on("node1").build(),
                pod().on("node2").build(), pod().on("node2").build()), 100, 100),
        c("no resources requested, pods scheduled with resources", least, pod().build(), big,
            List.of(onNode("node1", "3000", "0"), onNode("node1", "3000", "0"),
                onNode("node2", "3000", "0"), onNode("node2", "3000", "5000")), 70, 57),
        c("resources requested, pods scheduled with resources", least, twoContainers(), big,
            List.of(onNode("node1", "3000", "0"), onNode("node2", "3000", "5000")), 57, 45),
        c("resources requested, pods scheduled with resources, differently sized nodes", least,
            twoContainers(),
            List.of(n("node1", "10000", "20000"), n("node2", "10000", "50000")),
            List.of(onNode("node1", "3000", "0"), onNode("node2", "3000", "5000")), 57, 60),
        c("requested resources exceed node capacity", least, req("3000", "0"), small,
            List.of(onNode("node1", "3000", "0"), onNode("node2", "3000", "5000")), 50, 25),
        c("zero node resources, pods scheduled with resources", least, pod().build(),
            List.of(node("node1", res()), node("node2", res())),
            List.of(onNode("node1", "3000", "0"), onNode("node2", "3000", "5000")), 0, 0),
        c("different weight on cpu and memory, differently sized nodes",
            strategy("LeastAllocated", weights("memory", 2, "cpu", 1)), twoContainers(), sized,
            List.of(), 41, 50),
        c("bypass extended resource if the pod does not request",
            strategy("LeastAllocated", WITH_EXT), twoContainers(),
            List.of(n("node1", "6000", "10000"), n("node2", "6000", "10000", EXT, "4")),
            List.of(), 50, 50),
        c("honor extended resource if the pod requests", strategy("LeastAllocated", WITH_EXT),
            pod(res("cpu", "3000", "memory", "5000", EXT, "2")).build(),
            List.of(n("node1", "6000", "10000", EXT, "4"), n("node2", "6000", "10000", EXT, "10")),
            List.of(), 50, 60),
        c("if the node doesn't have a resource",
            strategy("LeastAllocated", weights(EXT, 2, "cpu", 1, "memory", 1)),
            req("3000", "4000"),
            List.of(n("node1", "6000", "10000"), n("node2", "6000", "10000", EXT, "4")),
            List.of(), 55, 55));
  }

  static Stream<Case> mostAllocatedCases() {
    Map<String, Object> most = strategy("MostAllocated", DEFAULT);
    List<Node> sized = List.of(n("node1", "4000", "10000"), n("node2", "6000", "10000"));
    List<Node> big = List.of(n("node1", "10000", "20000"), n("node2", "10000", "20000"));
    return Stream.of(
        c("nothing scheduled, nothing requested", most, pod().build(),
            List.of(n("node1", "4000", "10000"), n("node2", "4000", "10000")), List.of(), 0, 0),
        c("nothing scheduled, resources requested, differently sized nodes", most,
            twoContainers(), sized, List.of(), 62, 50),
        c("no resources requested, pods scheduled with resources", most, pod().build(), big,
            List.of(onNode("node1", "3000", "0"), onNode("node1", "3000", "0"),
                onNode("node2", "3000", "0"), onNode("node2", "3000", "5000")), 30, 42),
        c("resources requested, pods scheduled with resources", most, twoContainers(), big,
            List.of(onNode("node1", "3000", "0"), onNode("node2", "3000", "5000")), 42, 55),
        c("resources requested equal node capacity", most,
            pod(res("cpu", "2000", "memory", "4000"), res("cpu", "3000", "memory", "5000"))
                .build(),
            List.of(n("node1", "5000", "10000"), n("node2", "10000", "9000")), List.of(), 95, 75),
        c("different weight on cpu and memory", strategy("MostAllocated",
            weights("memory", 2, "cpu", 1)), twoContainers(), sized, List.of(), 58, 50),
        c("no resources requested, pods scheduled, nonzero request for resource", most,
            pod().bareContainer().build(),
            List.of(n("node1", "250m", "1000Mi"), n("node2", "250m", "1000Mi")),
            List.of(pod().bareContainer().on("node1").build(),
                pod().bareContainer().on("node1").build()), 80, 30),
        c("bypass extended resource if the pod does not request",
            strategy("MostAllocated", WITH_EXT), twoContainers(),
            List.of(n("node1", "6000", "10000"), n("node2", "6000", "10000", EXT, "4")),
            List.of(), 50, 50),
        c("honor extended resource if the pod requests", strategy("MostAllocated", WITH_EXT),
            pod(res("cpu", "3000", "memory", "5000", EXT, "2")).build(),
            List.of(n("node1", "6000", "10000", EXT, "4"), n("node2", "6000", "10000", EXT, "10")),
            List.of(), 50, 40),
        c("if the node doesn't have a resource",
            strategy("MostAllocated", weights(EXT, 2, "cpu", 1, "memory", 1)),
            req("3000", "4000"),
            List.of(n("node1", "6000", "10000"), n("node2", "6000", "10000", EXT, "4")),
            List.of(), 45, 45));
  }

  static Stream<Case> requestedToCapacityRatioCases() {
    Map<String, Object> leastLike = ratio(DEFAULT, shape(0, 10, 100, 0));
    Map<String, Object> mostLike = ratio(DEFAULT, shape(0, 0, 100, 10));
    Map<String, Object> extOnly = ratio(weights(EXT, 1), shape(0, 0, 100, 1));
    List<Node> fit = List.of(n("node1", "4000", "10000"), n("node2", "6000", "10000"));
    List<Pod> fitExisting = List.of(onNode("node1", "2000", "4000"),
        onNode("node2", "1000", "2000"));
    List<Node> extNodes = List.of(n("node1", "4000m", "10000Mi", EXT, "8"),
        n("node2", "4000m", "10000Mi", EXT, "4"));
    return Stream.of(
        c("fit score: least-like shape", leastLike, req("3000", "5000"), fit, fitExisting, 10, 32),
        c("fit score: most-like shape", mostLike, req("3000", "5000"), fit, fitExisting, 95, 68),
        c("nothing scheduled, nothing requested", leastLike, pod().build(),
            List.of(n("node1", "4000", "10000"), n("node2", "4000", "10000")),
            List.of(pod().on("node1").build(), pod().on("node1").build()), 100, 100),
        c("nothing scheduled, resources requested, differently sized nodes", leastLike,
            twoContainers(), fit, List.of(pod().on("node1").build()), 38, 50),
        c("no resources requested, pods scheduled with resources", leastLike, pod().build(), fit,
            List.of(onNode("node1", "3000", "5000"), onNode("node2", "3000", "5000")), 38, 50),
        c("single extended resource, nothing requested", extOnly, pod().build(), extNodes,
            List.of(), 0, 0),
        c("single extended resource, pods scheduled with less resources", extOnly,
            pod(res(EXT, "2")).build(), extNodes, List.of(pod().build()), 2, 5),
        c("single extended resource, on node with existing pod running", extOnly,
            pod(res(EXT, "2")).build(), extNodes, List.of(pod(res(EXT, "2")).on("node2").build()),
            2, 10),
        c("single extended resource, pods scheduled with more resources", extOnly,
            pod(res(EXT, "4")).build(), extNodes, List.of(), 5, 10));
  }

  static Stream<Case> fitScoreCases() {
    List<Node> nodes = List.of(n("node1", "4000", "10000"), n("node2", "6000", "10000"));
    List<Pod> existing = List.of(onNode("node1", "2000", "4000"), onNode("node2", "1000", "2000"));
    List<Node> equal = List.of(n("node1", "4000", "10000"), n("node2", "4000", "10000"));
    List<Pod> withSidecar = List.of(
        pod(res("cpu", "1000", "memory", "2000")).sidecar(res("cpu", "1000", "memory", "2000"))
            .on("node1").build(),
        onNode("node2", "1000", "2000"));
    return Stream.of(
        c("MostAllocated", strategy("MostAllocated", DEFAULT), req("1000", "2000"), nodes,
            existing, 67, 36),
        c("LeastAllocated", strategy("LeastAllocated", DEFAULT), req("1000", "2000"), nodes,
            existing, 32, 63),
        c("MostAllocated with sidecar container", strategy("MostAllocated", DEFAULT),
            req("1000", "2000"), equal, withSidecar, 67, 45),
        c("LeastAllocated with sidecar container", strategy("LeastAllocated", DEFAULT),
            req("1000", "2000"), equal, withSidecar, 32, 55),
        c("default arguments are LeastAllocated over cpu and memory", Map.of(),
            req("1000", "2000"), nodes, existing, 32, 63));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"leastAllocatedCases", "mostAllocatedCases", "requestedToCapacityRatioCases",
      "fitScoreCases"})
  void scoresMatchUpstream(Case c) {
    NodeResourcesFit plugin = plugin(c.args());
    List<NodeInfo> nodeInfos = nodeInfos(c.nodes(), c.existing());
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, c.pod(), nodeInfos)).isEqualTo(Status.SUCCESS);

    assertThat(scores(plugin, state, c.pod(), nodeInfos)).isEqualTo(c.want());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"fitScoreCases", "requestedToCapacityRatioCases"})
  void scoresAreTheSameWhenPreScoreWasNotCalled(Case c) {
    NodeResourcesFit plugin = plugin(c.args());
    List<NodeInfo> nodeInfos = nodeInfos(c.nodes(), c.existing());

    assertThat(scores(plugin, new CycleState(), c.pod(), nodeInfos)).isEqualTo(c.want());
  }

  @Test
  void containersWithoutRequestsCountDefaultCpuAndMemory() {
    // 100m and 200Mi per container without requests: 2 pods on node1 plus the incoming one
    NodeResourcesFit plugin = plugin(strategy("MostAllocated", DEFAULT));
    Node node = n("node1", "1", "1000Mi");
    NodeInfo nodeInfo = NodeInfo.of(node, pod().bareContainer().build(),
        pod().bareContainer().build());
    Pod incoming = pod().bareContainer().build();
    CycleState state = new CycleState();
    plugin.preScore(state, incoming, List.of(nodeInfo));

    // cpu 300m of 1000m = 30, memory 600Mi of 1000Mi = 60
    assertThat(plugin.score(state, incoming, nodeInfo)).isEqualTo(45);
  }

  @Test
  void scoreWithMalformedQuantityAndNoPreScoreThrowsStatusNamingTheField() {
    Quantity broken = new Quantity();
    broken.setAmount("ten");
    Pod pod = pod(res("cpu", "1")).build();
    pod.getSpec().getContainers().get(0).getResources().getRequests().put("memory", broken);
    NodeResourcesFit plugin = plugin(Map.of());

    assertThatThrownBy(() -> plugin.score(new CycleState(), pod,
        NodeInfo.of(n("node1", "1", "1Gi"))))
        .isInstanceOfSatisfying(StatusException.class, e -> {
          assertThat(e.status().code()).isEqualTo(Code.ERROR);
          assertThat(e.status().message()).contains("spec.containers[0].resources.requests.memory");
        });
    Status preScore = plugin.preScore(new CycleState(), pod, List.of());
    assertThat(preScore.code()).isEqualTo(Code.ERROR);
    assertThat(preScore.message()).contains("spec.containers[0].resources.requests.memory");
  }

  @Test
  void brokenLinearFunctionInterpolatesBetweenShapePoints() {
    long[][] cases = {
        // utilization, score pairs; then (p, expected) pairs
        {10, 1, 90, 9}, {-10, 1, 0, 1, 9, 1, 10, 1, 15, 1, 19, 1, 20, 2, 89, 8, 90, 9, 99, 9,
            100, 9, 110, 9},
        {0, 2, 40, 10, 100, 0}, {-10, 2, 0, 2, 20, 6, 30, 8, 40, 10, 70, 5, 100, 0, 110, 0},
        {0, 2, 40, 2, 100, 2}, {-10, 2, 0, 2, 20, 2, 30, 2, 40, 2, 70, 2, 100, 2, 110, 2}};
    for (int c = 0; c < cases.length; c += 2) {
      long[] points = cases[c];
      long[] utilizations = new long[points.length / 2];
      long[] scores = new long[points.length / 2];
      for (int i = 0; i < utilizations.length; i++) {
        utilizations[i] = points[2 * i];
        scores[i] = points[2 * i + 1];
      }
      long[] assertions = cases[c + 1];
      for (int i = 0; i < assertions.length; i += 2) {
        assertThat(ResourceScorers.brokenLinear(utilizations, scores, assertions[i]))
            .as("shape %s at %d", java.util.Arrays.toString(points), assertions[i])
            .isEqualTo(assertions[i + 1]);
      }
    }
  }

  static NodeResourcesFit plugin(Map<String, Object> args) {
    return (NodeResourcesFit) NodeResourcesFit.create(args, new TestHandle());
  }

  static List<NodeInfo> nodeInfos(List<Node> nodes, List<Pod> pods) {
    List<NodeInfo> out = new ArrayList<>();
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      out.add(NodeInfo.of(node, pods.stream()
          .filter(p -> name.equals(p.getSpec().getNodeName())).toArray(Pod[]::new)));
    }
    return out;
  }

  static List<Long> scores(io.berth.framework.ScorePlugin plugin, CycleState state, Pod pod,
      List<NodeInfo> nodeInfos) {
    List<Long> out = new ArrayList<>();
    for (NodeInfo nodeInfo : nodeInfos) {
      out.add(plugin.score(state, pod, nodeInfo));
    }
    return out;
  }
}
