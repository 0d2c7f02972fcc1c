package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.doesNotExist;
import static io.berth.plugins.interpodaffinity.Fixtures.exists;
import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.labels;
import static io.berth.plugins.interpodaffinity.Fixtures.node;
import static io.berth.plugins.interpodaffinity.Fixtures.nodeInfos;
import static io.berth.plugins.interpodaffinity.Fixtures.notIn;
import static io.berth.plugins.interpodaffinity.Fixtures.plugin;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.selector;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static io.berth.plugins.interpodaffinity.Fixtures.weighted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PreScore + Score + NormalizeScore, with cases translated from upstream's scoring_test.go
 * (TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight).
 */
class InterPodAffinityScoreTest {
  private static final long MAX = 100;
  private static final Map<String, String> S1 = labels("security", "S1");
  private static final Map<String, String> S2 = labels("security", "S2");
  private static final Map<String, String> CHINA = labels("region", "China");
  private static final Map<String, String> INDIA = labels("region", "India");
  private static final Map<String, String> AZ1 = labels("az", "az1");
  private static final Map<String, String> AZ2 = labels("az", "az2");
  private static final Map<String, String> CHINA_AZ1 = labels("region", "China", "az", "az1");

  private static final Affinity STAY_WITH_S1_IN_REGION = affinity(pod()
      .preferredAffinity(weighted(5, term("region", in("security", "S1")))));
  private static final Affinity STAY_WITH_S2_IN_REGION = affinity(pod()
      .preferredAffinity(weighted(6, term("region", in("security", "S2")))));
  private static final Affinity AFFINITY3 = affinity(pod().preferredAffinity(
      weighted(8, term("region", notIn("security", "S1"), in("security", "S2"))),
      weighted(2, term("region", exists("security"), doesNotExist("wrongkey")))));
  private static final Affinity HARD_AFFINITY = affinity(pod().affinity(
      term("region", in("security", "S1", "value2")),
      term("region", exists("security"), doesNotExist("wrongkey"))));
  private static final Affinity AWAY_FROM_S1_IN_AZ = affinity(pod()
      .preferredAntiAffinity(weighted(5, term("az", in("security", "S1")))));
  private static final Affinity AWAY_FROM_S2_IN_AZ = affinity(pod()
      .preferredAntiAffinity(weighted(5, term("az", in("security", "S2")))));
  private static final Affinity STAY_WITH_S1_AWAY_FROM_S2 = affinity(pod()
      .preferredAffinity(weighted(8, term("region", in("security", "S1"))))
      .preferredAntiAffinity(weighted(5, term("az", in("security", "S2")))));
  private static final Affinity AFFINITY_NS_SELECTOR = affinity(pod()
      .preferredAffinity(weighted(5, term("region", List.of("subteam2.team2"),
          selector(in("team", "team1")), in("security", "S1")))));
  private static final Affinity ANTI_AFFINITY_NS_SELECTOR = affinity(pod()
      .preferredAntiAffinity(weighted(5, term("region", List.of("subteam2.team2"),
          selector(in("team", "team1")), in("security", "S1")))));

  private static Affinity affinity(Fixtures.PodMaker maker) {
    return maker.obj().getSpec().getAffinity();
  }

  /** A case: the incoming pod, the cluster, args, and normalized scores or PreScore's status. */
  record Case(String name, Pod pod, List<Pod> pods, List<Node> nodes, Map<String, Object> args,
      Status wantStatus, List<Long> wantScores) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case scores(String name, Pod pod, List<Pod> pods, List<Node> nodes,
      Long... want) {
    return new Case(name, pod, pods, nodes, Map.of(), Status.SUCCESS, List.of(want));
  }

  private static Case skipped(String name, Pod pod, List<Pod> pods, List<Node> nodes,
      Map<String, Object> args) {
    return new Case(name, pod, pods, nodes, args, Status.skip(), List.of());
  }

  private static Pod on(String node, Map<String, String> labels) {
    return pod().node(node).labels(labels).obj();
  }

  private static Pod on(String node, Map<String, String> labels, Affinity affinity) {
    return pod().node(node).labels(labels).affinity(affinity).obj();
  }

  private static Pod on(String node, String namespace, Map<String, String> labels) {
    return pod().node(node).ns(namespace).labels(labels).obj();
  }

  static Stream<Arguments> preferredCases() {
    List<Case> c = new ArrayList<>();
    c.add(skipped("no affinity anywhere: PreScore skips", pod().labels(S1).obj(), List.of(),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), Map.of()));
    c.add(scores("affinity: matching pods in the topology score high",
        pod().labels(S1).affinity(STAY_WITH_S1_IN_REGION).obj(),
        List.of(on("node1", S1), on("node2", S2), on("node3", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), MAX, 0L, 0L));
    c.add(scores("affinity: every node of the matching domain scores the same",
        pod().affinity(STAY_WITH_S1_IN_REGION).obj(), List.of(on("node1", S1)),
        List.of(node("node1", CHINA), node("node2", CHINA_AZ1), node("node3", INDIA)),
        MAX, MAX, 0L));
    c.add(scores("affinity: the region with more matching pods scores high",
        pod().labels(S1).affinity(STAY_WITH_S2_IN_REGION).obj(),
        List.of(on("node1", S2), on("node1", S2), on("node2", S2), on("node3", S2),
            on("node4", S2), on("node5", S2)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", CHINA),
            node("node4", CHINA), node("node5", INDIA)), MAX, 0L, MAX, MAX, 0L));
    c.add(scores("affinity: different operators, some failing",
        pod().labels(S1).affinity(AFFINITY3).obj(),
        List.of(on("node1", S1), on("node2", S2), on("node3", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), 20L, MAX, 0L));
    c.add(scores("affinity symmetry: existing pods' preferred terms",
        pod().labels(S2).obj(),
        List.of(on("node1", S1, STAY_WITH_S1_IN_REGION), on("node2", S2, STAY_WITH_S2_IN_REGION)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), 0L, MAX, 0L));
    c.add(scores("affinity symmetry with a namespace selector",
        pod().ns("subteam1.team1").labels(S1).obj(),
        List.of(on("node1", S1, AFFINITY_NS_SELECTOR), on("node2", S2, STAY_WITH_S2_IN_REGION)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), MAX, 0L, 0L));
    c.add(scores("anti-affinity symmetry with a namespace selector",
        pod().ns("subteam1.team1").labels(S1).obj(),
        List.of(on("node1", S1, ANTI_AFFINITY_NS_SELECTOR),
            on("node2", S2, STAY_WITH_S2_IN_REGION)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), 0L, MAX, MAX));
    c.add(scores("affinity symmetry: existing pods' required terms (hard weight 1)",
        pod().labels(S1).obj(),
        List.of(on("node1", S1, HARD_AFFINITY), on("node2", S2, HARD_AFFINITY)),
        List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1)), MAX, MAX, 0L));
    c.add(scores("anti-affinity: nodes with matching pods score low",
        pod().labels(S1).affinity(AWAY_FROM_S1_IN_AZ).obj(),
        List.of(on("node1", S1), on("node2", S2)),
        List.of(node("node1", AZ1), node("node2", CHINA)), 0L, MAX));
    c.add(scores("anti-affinity: a node without the topology key scores high",
        pod().labels(S1).affinity(AWAY_FROM_S1_IN_AZ).obj(),
        List.of(on("node1", S1), on("node2", S1)),
        List.of(node("node1", AZ1), node("node2", CHINA)), 0L, MAX));
    c.add(scores("anti-affinity: more matching pods score lower",
        pod().labels(S1).affinity(AWAY_FROM_S1_IN_AZ).obj(),
        List.of(on("node1", S1), on("node1", S1), on("node2", S2)),
        List.of(node("node1", AZ1), node("node2", INDIA)), 0L, MAX));
    c.add(scores("anti-affinity symmetry: existing pods' preferred anti-affinity",
        pod().labels(S2).obj(),
        List.of(on("node1", S1, AWAY_FROM_S2_IN_AZ), on("node2", S2, AWAY_FROM_S1_IN_AZ)),
        List.of(node("node1", AZ1), node("node2", AZ2)), 0L, MAX));
    c.add(scores("affinity and anti-affinity of the incoming pod",
        pod().labels(S1).affinity(STAY_WITH_S1_AWAY_FROM_S2).obj(),
        List.of(on("node1", S1), on("node2", S1)),
        List.of(node("node1", CHINA), node("node2", AZ1)), MAX, 0L));
    c.add(scores("same-labelled pods: together in a region, apart on nodes",
        pod().labels(S1).affinity(STAY_WITH_S1_AWAY_FROM_S2).obj(),
        List.of(on("node1", S1), on("node1", S1), on("node2", S1), on("node3", S1),
            on("node3", S1), on("node4", S1), on("node5", S1)),
        List.of(node("node1", CHINA_AZ1), node("node2", INDIA), node("node3", CHINA),
            node("node4", CHINA), node("node5", INDIA)), MAX, 0L, MAX, MAX, 0L));
    c.add(scores("affinity, anti-affinity and both symmetries together",
        pod().labels(S1).affinity(STAY_WITH_S1_AWAY_FROM_S2).obj(),
        List.of(on("node1", S1), on("node2", S2),
            pod().node("node3").affinity(STAY_WITH_S1_AWAY_FROM_S2).obj(),
            pod().node("node4").affinity(AWAY_FROM_S1_IN_AZ).obj()),
        List.of(node("node1", CHINA), node("node2", AZ1), node("node3", INDIA),
            node("node4", AZ2)), MAX, 0L, MAX, 0L));
    c.add(scores("only some nodes of a topology hold pods with affinity",
        pod().labels(S1).obj(),
        List.of(on("node1", S1), pod().node("node2").affinity(STAY_WITH_S1_AWAY_FROM_S2).obj()),
        List.of(node("node1", CHINA), node("node2", CHINA)), 0L, 0L));
    c.add(scores("affinity with pods matching the namespace selector",
        pod().ns("subteam1.team1").labels(S1).affinity(AFFINITY_NS_SELECTOR).obj(),
        List.of(on("node1", "subteam1.team1", S1), on("node1", "subteam1.team1", S1),
            on("node1", "subteam1.team2", S1), on("node2", "subteam2.team1", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA)), MAX, 0L));
    c.add(scores("affinity with pods matching the namespace selector and namespaces",
        pod().ns("subteam1.team1").labels(S1).affinity(AFFINITY_NS_SELECTOR).obj(),
        List.of(on("node1", "subteam1.team1", S1), on("node1", "subteam1.team1", S1),
            on("node1", "subteam2.team2", S1), on("node2", "subteam2.team1", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA)), MAX, 0L));
    c.add(scores("anti-affinity with pods matching the namespace selector",
        pod().ns("subteam1.team1").labels(S1).affinity(ANTI_AFFINITY_NS_SELECTOR).obj(),
        List.of(on("node1", "subteam1.team1", S1), on("node1", "subteam1.team1", S1),
            on("node1", "subteam1.team2", S1), on("node2", "subteam2.team1", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA)), 0L, MAX));
    c.add(scores("anti-affinity with pods matching the namespace selector and namespaces",
        pod().ns("subteam1.team1").labels(S1).affinity(ANTI_AFFINITY_NS_SELECTOR).obj(),
        List.of(on("node1", "subteam1.team1", S1), on("node1", "subteam1.team1", S1),
            on("node1", "subteam2.team2", S1), on("node2", "subteam2.team1", S1)),
        List.of(node("node1", CHINA), node("node2", INDIA)), 0L, MAX));
    c.add(skipped("ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
        pod().labels(S2).obj(),
        List.of(on("node1", S1, STAY_WITH_S1_AWAY_FROM_S2), on("node2", S2,
            STAY_WITH_S2_IN_REGION)),
        List.of(node("node1", CHINA), node("node2", INDIA)),
        Map.of("ignorePreferredTermsOfExistingPods", true)));
    c.add(scores("existing pods' preferred terms count by default",
        pod().labels(S2).obj(),
        List.of(on("node1", S1, STAY_WITH_S1_AWAY_FROM_S2), on("node2", S2,
            STAY_WITH_S2_IN_REGION)),
        List.of(node("node1", CHINA), node("node2", INDIA)), 0L, MAX));
    c.add(skipped("no nodes to score", pod().labels(S2).obj(), List.of(), List.of(), Map.of()));
    return c.stream().map(Arguments::of);
  }

  static Stream<Arguments> hardWeightCases() {
    Affinity hard = affinity(pod().affinity(term("region",
        List.of(Fixtures.DEFAULT_NS, "subteam2.team2"), selector(in("team", "team1")),
        in("service", "S1"))));
    List<Pod> pods = List.of(pod().node("node1").affinity(hard).obj(),
        pod().node("node2").affinity(hard).obj());
    List<Node> nodes = List.of(node("node1", CHINA), node("node2", INDIA), node("node3", AZ1));
    Map<String, String> s1 = labels("service", "S1");
    Map<String, Object> weight1 = Map.of("hardPodAffinityWeight", 1);
    List<Case> c = new ArrayList<>();
    c.add(new Case("default weight", pod().labels(s1).obj(), pods, nodes, Map.of(),
        Status.SUCCESS, List.of(MAX, MAX, 0L)));
    c.add(skipped("zero weight", pod().labels(s1).obj(), pods, nodes,
        Map.of("hardPodAffinityWeight", 0)));
    c.add(skipped("no matching namespace", pod().ns("subteam1.team2").labels(s1).obj(), pods,
        nodes, weight1));
    c.add(new Case("matching namespace selector", pod().ns("subteam1.team1").labels(s1).obj(),
        pods, nodes, weight1, Status.SUCCESS, List.of(MAX, MAX, 0L)));
    c.add(new Case("matching namespaces", pod().ns("subteam2.team2").labels(s1).obj(), pods,
        nodes, weight1, Status.SUCCESS, List.of(MAX, MAX, 0L)));
    return c.stream().map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"preferredCases", "hardWeightCases"})
  void normalizedScoresMatchUpstream(Case c) {
    List<NodeInfo> infos = nodeInfos(c.nodes(), c.pods());
    InterPodAffinity plugin = plugin(infos, c.args());
    CycleState state = new CycleState();

    Status status = plugin.preScore(state, c.pod(), infos);

    assertThat(status).isEqualTo(c.wantStatus());
    if (!status.isSuccess()) {
      return;
    }
    assertThat(normalized(plugin, state, c.pod(), infos)).containsExactlyElementsOf(c.wantScores());
  }

  @Test
  void rawScoresSumMatchedWeightsPerDomain() {
    // affinity +8 per S1 pod in the region, anti-affinity -5 per S2 pod in the az
    Pod incoming = pod().labels(S1).affinity(STAY_WITH_S1_AWAY_FROM_S2).obj();
    List<NodeInfo> infos = nodeInfos(
        List.of(node("n1", labels("region", "r1", "az", "a")), node("n2", labels("region", "r1")),
            node("n3", labels("az", "a")), node("n4", labels("region", "r2"))),
        List.of(on("n1", S1), on("n2", S1), on("n3", S2), on("n3", S2)));
    InterPodAffinity plugin = plugin(infos, Map.of());
    CycleState state = new CycleState();

    assertThat(plugin.preScore(state, incoming, infos).isSuccess()).isTrue();

    assertThat(infos.stream().map(n -> plugin.score(state, incoming, n)))
        .containsExactly(16L - 10L, 16L, -10L, 0L);
    assertThat(normalized(plugin, state, incoming, infos))
        .containsExactly(61L, 100L, 0L, 38L);
  }

  @Test
  void normalizeScoreScalesBetweenMinAndMax() {
    CycleState state = new CycleState();
    state.write(PreScoreState.KEY, new PreScoreState(Map.of("zone", Map.of("z", 1L))));
    InterPodAffinity plugin = plugin(List.of(), Map.of());
    List<NodeScore> scores = List.of(new NodeScore("a", -7), new NodeScore("b", 0),
        new NodeScore("c", 3), new NodeScore("d", -7));

    assertThat(plugin.normalizeScore(state, pod().obj(), scores).isSuccess()).isTrue();

    assertThat(scores.stream().map(NodeScore::score)).containsExactly(0L, 70L, 100L, 0L);
  }

  @Test
  void normalizeScoreGivesZeroWhenAllScoresAreEqual() {
    CycleState state = new CycleState();
    state.write(PreScoreState.KEY, new PreScoreState(Map.of("zone", Map.of("z", 1L))));
    InterPodAffinity plugin = plugin(List.of(), Map.of());
    List<NodeScore> scores = List.of(new NodeScore("a", 42), new NodeScore("b", 42));

    plugin.normalizeScore(state, pod().obj(), scores);

    assertThat(scores.stream().map(NodeScore::score)).containsExactly(0L, 0L);
  }

  @Test
  void scoreWithoutPreScoreStateThrowsAnErrorStatus() {
    List<NodeInfo> infos = nodeInfos(List.of(node("n1", CHINA)), List.of());
    InterPodAffinity plugin = plugin(infos, Map.of());

    assertThatThrownBy(() -> plugin.score(new CycleState(), pod().obj(), infos.get(0)))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.status()).isEqualTo(
            Status.error("error reading \"PreScoreInterPodAffinity\" from cycleState: not found")));
  }

  @Test
  void preScoreOfAMalformedPreferredTermIsAnErrorNamingTheField() {
    LabelSelectorRequirement bad = new LabelSelectorRequirement("security", "In", List.of());
    Pod incoming = pod().preferredAffinity(weighted(3, term("region", bad))).obj();
    List<NodeInfo> infos = nodeInfos(List.of(node("n1", CHINA)), List.of(on("n1", S1)));

    Status status = plugin(infos, Map.of()).preScore(new CycleState(), incoming, infos);

    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message()).contains("spec.affinity.podAffinity."
        + "preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector"
        + ".matchExpressions[0].values");
  }

  @Test
  void hardPodAffinityWeightScalesExistingRequiredTerms() {
    Affinity hard = affinity(pod().affinity(term("region", in("app", "db"))));
    Pod incoming = pod().label("app", "db")
        .preferredAffinity(weighted(10, term("region", in("tier", "cache")))).obj();
    List<NodeInfo> infos = nodeInfos(List.of(node("n1", CHINA), node("n2", INDIA)),
        List.of(pod().node("n1").affinity(hard).obj(), on("n2", labels("tier", "cache"))));
    Map<String, Long> raw = new HashMap<>();
    for (int weight : new int[] {5, 20}) {
      InterPodAffinity plugin = plugin(infos, Map.of("hardPodAffinityWeight", weight));
      CycleState state = new CycleState();
      plugin.preScore(state, incoming, infos);
      raw.put("n1@" + weight, plugin.score(state, incoming, infos.get(0)));
      raw.put("n2@" + weight, plugin.score(state, incoming, infos.get(1)));
    }

    assertThat(raw).containsEntry("n1@5", 5L).containsEntry("n1@20", 20L)
        .containsEntry("n2@5", 10L).containsEntry("n2@20", 10L);
  }

  private static List<Long> normalized(InterPodAffinity plugin, CycleState state, Pod pod,
      List<NodeInfo> infos) {
    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo n : infos) {
      scores.add(new NodeScore(n.nodeName(), plugin.score(state, pod, n)));
    }
    Status status = plugin.normalizeScore(state, pod, scores);
    assertThat(status.isSuccess()).as("NormalizeScore %s", status).isTrue();
    return scores.stream().map(NodeScore::score).toList();
  }
}
