package io.berth.plugins.nodeaffinity;

import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.addedPreferred;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.exprs;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.node;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.pod;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.preferred;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.preferring;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.req;
import static io.berth.plugins.nodeaffinity.NodeAffinityFixtures.reqMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeAffinityScoreTest {
  private static final Map<String, String> LABEL1 = Map.of("foo", "bar");
  private static final Map<String, String> LABEL2 = Map.of("key", "value");
  private static final Map<String, String> LABEL3 = Map.of("az", "az1");
  private static final Map<String, String> LABEL4 = Map.of("abc", "az11", "def", "az22");
  private static final Map<String, String> LABEL5 = Map.of("foo", "bar", "key", "value",
      "az", "az1");

  private static Pod affinity1() {
    return preferring(preferred(2, exprs(req("foo", "In", "bar"))));
  }

  private static Pod affinity2() {
    return preferring(preferred(2, exprs(req("foo", "In", "bar"))),
        preferred(4, exprs(req("key", "In", "value"))),
        preferred(5, exprs(req("foo", "In", "bar"), req("key", "In", "value"),
            req("az", "In", "az1"))));
  }

  // upstream's TestNodeAffinityPriority
  static Stream<Arguments> cases() {
    Map<String, Object> affinity1Args = addedPreferred(2, Map.of("matchExpressions",
        List.of(reqMap("foo", "In", "bar"))));
    Map<String, Object> weight3Args = addedPreferred(3, Map.of("matchExpressions",
        List.of(reqMap("key", "In", "value"))));
    return Stream.of(
        Arguments.of("all nodes are same priority as NodeAffinity is nil", pod(),
            List.of(node("node1", LABEL1), node("node2", LABEL2), node("node3", LABEL3)),
            Map.of(), true, List.of(0L, 0L, 0L)),
        Arguments.of("no node matches preferred scheduling requirements", affinity1(),
            List.of(node("node1", LABEL4), node("node2", LABEL2), node("node3", LABEL3)),
            Map.of(), true, List.of(0L, 0L, 0L)),
        Arguments.of("only node1 matches the preferred scheduling requirements", affinity1(),
            List.of(node("node1", LABEL1), node("node2", LABEL2), node("node3", LABEL3)),
            Map.of(), true, List.of(100L, 0L, 0L)),
        Arguments.of("all nodes match with different priorities", affinity2(),
            List.of(node("node1", LABEL1), node("node5", LABEL5), node("node2", LABEL2)),
            Map.of(), true, List.of(18L, 100L, 36L)),
        Arguments.of("added affinity", pod(),
            List.of(node("node1", LABEL1), node("node2", LABEL2)), affinity1Args, true,
            List.of(100L, 0L)),
        Arguments.of("added affinity and pod has default affinity", affinity1(),
            List.of(node("node1", LABEL1), node("node2", LABEL2), node("node3", LABEL5)),
            weight3Args, true, List.of(40L, 60L, 100L)),
        Arguments.of("calculate the priorities correctly even if PreScore is not called",
            affinity2(),
            List.of(node("node1", LABEL1), node("node5", LABEL5), node("node2", LABEL2)),
            Map.of(), false, List.of(18L, 100L, 36L)),
        // edge cases
        Arguments.of("weight 0 and empty preferences are ignored",
            preferring(preferred(0, exprs(req("foo", "In", "bar"))), preferred(7, exprs()),
                preferred(1, exprs(req("key", "Exists")))),
            List.of(node("node1", LABEL1), node("node2", LABEL2)), Map.of(), true,
            List.of(0L, 100L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresSumOfMatchedWeightsNormalized(String name, Pod pod, List<Node> nodes,
      Map<String, Object> args, boolean runPreScore, List<Long> expected) {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(args, null);
    List<NodeInfo> infos = nodes.stream().map(NodeInfo::of).toList();
    CycleState state = new CycleState();
    if (runPreScore) {
      Status pre = plugin.preScore(state, pod, infos);
      assertThat(pre.isSuccess() || pre.isSkip()).as(pre.toString()).isTrue();
    }

    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo info : infos) {
      scores.add(new NodeScore(info.nodeName(), plugin.score(state, pod, info)));
    }
    assertThat(plugin.scoreExtensions().orElseThrow().normalizeScore(state, pod, scores))
        .isEqualTo(Status.SUCCESS);

    assertThat(scores).extracting(NodeScore::score).containsExactlyElementsOf(expected);
  }

  @Test
  void preScoreSkipsWithoutAnyPreferredTerms() {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    assertThat(plugin.preScore(new CycleState(), pod(), List.of()).code()).isEqualTo(Code.SKIP);
  }

  @Test
  void preScoreRunsWhenOnlyTheProfileAddsPreferredTerms() {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(addedPreferred(1,
        Map.of("matchExpressions", List.of(reqMap("foo", "Exists")))), null);
    assertThat(plugin.preScore(new CycleState(), pod(), List.of())).isEqualTo(Status.SUCCESS);
  }

  @Test
  void rawScoreIsTheSumOfMatchedWeights() {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    CycleState state = new CycleState();
    plugin.preScore(state, affinity2(), List.of());

    assertThat(plugin.score(state, affinity2(), NodeInfo.of(node("n", LABEL5)))).isEqualTo(11);
    assertThat(plugin.score(state, affinity2(), NodeInfo.of(node("n", LABEL2)))).isEqualTo(4);
  }

  @Test
  void invalidPreferredTermIsAnErrorNamingTheField() {
    Pod pod = preferring(preferred(1, exprs(req("foo", "In", "bar"))),
        preferred(3, exprs(req("foo", "Around", "bar"))));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    String field = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]"
        + ".matchExpressions[0].operator: Unsupported value: \"Around\"";

    Status status = plugin.preScore(new CycleState(), pod, List.of());

    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message()).startsWith(field);
    assertThatThrownBy(() -> plugin.score(new CycleState(), pod, NodeInfo.of(node("n", LABEL1))))
        .isInstanceOfSatisfying(StatusException.class, e -> {
          assertThat(e.status().code()).isEqualTo(Code.ERROR);
          assertThat(e.status().message()).startsWith(field);
        });
  }

  @Test
  void invalidTermWithZeroWeightIsNeverParsed() {
    Pod pod = preferring(preferred(0, exprs(req("foo", "Around", "bar"))));
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(Map.of(), null);
    CycleState state = new CycleState();

    assertThat(plugin.preScore(state, pod, List.of())).isEqualTo(Status.SUCCESS);
    assertThat(plugin.score(state, pod, NodeInfo.of(node("n", LABEL1)))).isZero();
  }

  @Test
  void concurrentScoresAgreeWithSequential() throws Exception {
    NodeAffinity plugin = (NodeAffinity) NodeAffinity.create(addedPreferred(3,
        Map.of("matchExpressions", List.of(reqMap("az", "Exists")))), null);
    Pod pod = affinity2();
    List<Map<String, String>> labelSets = List.of(LABEL1, LABEL2, LABEL3, LABEL4, LABEL5);
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      nodes.add(NodeInfo.of(node("n" + i, labelSets.get(i % labelSets.size()))));
    }
    CycleState state = new CycleState();
    plugin.preScore(state, pod, nodes);
    List<Long> expected = nodes.stream().map(n -> plugin.score(state, pod, n)).toList();

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Long>>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        tasks.add(() -> nodes.stream().map(n -> plugin.score(state, pod, n)).toList());
      }
      for (Future<List<Long>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(expected.subList(0, 5)).containsExactly(2L, 4L, 3L, 0L, 14L);
  }
}
