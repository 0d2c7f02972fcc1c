package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MEDIUM;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MID;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.SMALL;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pdb;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.topologyNodes;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.plugins.defaultpreemption.TestFilters.FakeFilter;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code TestDryRunPreemption}, translated: which nodes become candidates and with
 * which victims, and how many times Filter runs, with the real NodeResourcesFit, InterPodAffinity
 * and PodTopologySpread plugins and a sequential parallelizer (as upstream does whenever a result
 * depends on the order of evaluation). Candidates print as "node [victims sorted] pdb=N".
 */
class DryRunPreemptionTest {
  record Case(String name, Consumer<PreemptionRuntime.Builder> plugins, Code fakeFilterCode,
      Map<String, Object> args, List<String> nodeNames, List<Pod> testPods, List<Pod> initPods,
      List<PodDisruptionBudget> pdbs, int[] offsets, List<List<String>> expected,
      int[] expectedFilterCalls) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case c(String name, Consumer<PreemptionRuntime.Builder> plugins, Code fakeCode,
      List<String> nodes, Pod testPod, List<Pod> initPods, List<PodDisruptionBudget> pdbs,
      List<String> expected, int filterCalls) {
    return new Case(name, plugins, fakeCode, Map.of(), nodes, List.of(testPod), initPods, pdbs,
        new int[] {0}, List.of(expected), new int[] {filterCalls});
  }

  private static final Consumer<PreemptionRuntime.Builder> FIT = PreemptionRuntime.Builder::fit;
  private static final List<String> TWO_NODES = List.of("node1", "node2");
  private static final List<String> FIVE_NODES =
      List.of("node1", "node2", "node3", "node4", "node5");
  private static final Map<String, Object> LIMIT_TO_TWO =
      Map.of("minCandidateNodesPercentage", 40, "minCandidateNodesAbsolute", 1);

  static Stream<Case> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(c("a pod that does not fit on any node",
        b -> b.plugin("FalseFilter", TestFilters.falseFilter()), null, TWO_NODES,
        pod("p").priority(HIGH).obj(),
        List.of(pod("p1").node("node1").priority(MID).obj(),
            pod("p2").node("node2").priority(MID).obj()),
        List.of(), List.of(), 2));
    cases.add(c("a pod that fits with no preemption",
        b -> b.plugin("TrueFilter", TestFilters.trueFilter()), Code.UNSCHEDULABLE, TWO_NODES,
        pod("p").priority(HIGH).obj(),
        List.of(pod("p1").node("node1").priority(MID).obj(),
            pod("p2").node("node2").priority(MID).obj()),
        List.of(), List.of(), 2));
    cases.add(c("a pod that fits on one node with no preemption",
        b -> b.plugin("MatchFilter", TestFilters.matchFilter()), Code.UNSCHEDULABLE, TWO_NODES,
        pod("node1").priority(HIGH).obj(),
        List.of(pod("p1").node("node1").priority(MID).obj(),
            pod("p2").node("node2").priority(MID).obj()),
        List.of(), List.of(), 2));
    cases.add(c("a pod that fits on both nodes when lower priority pods are preempted", FIT,
        null, TWO_NODES, pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").priority(MID).req(LARGE).obj(),
            pod("p2").node("node2").priority(MID).req(LARGE).obj()),
        List.of(), List.of("node1 [p1] pdb=0", "node2 [p2] pdb=0"), 4));
    cases.add(c("a pod that would fit on the nodes, but other pods running are higher priority,"
        + " no preemption would happen", FIT, null, TWO_NODES,
        pod("p").priority(LOW).req(LARGE).obj(),
        List.of(pod("p1").node("node1").priority(MID).req(LARGE).obj(),
            pod("p2").node("node2").priority(MID).req(LARGE).obj()),
        List.of(), List.of(), 0));
    cases.add(c("medium priority pod is preempted, but lower priority one stays as it is small",
        FIT, null, TWO_NODES, pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1.1").node("node1").priority(LOW).req(SMALL).obj(),
            pod("p1.2").node("node1").priority(MID).req(LARGE).obj(),
            pod("p2").node("node2").priority(MID).req(LARGE).obj()),
        List.of(), List.of("node1 [p1.2] pdb=0", "node2 [p2] pdb=0"), 5));
    cases.add(c("mixed priority pods are preempted", FIT, null, TWO_NODES,
        pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1.1").node("node1").priority(MID).req(SMALL).obj(),
            pod("p1.2").node("node1").priority(LOW).req(SMALL).obj(),
            pod("p1.3").node("node1").priority(MID).req(MEDIUM).obj(),
            pod("p1.4").node("node1").priority(HIGH).req(SMALL).obj(),
            pod("p2").node("node2").priority(HIGH).req(LARGE).obj()),
        List.of(), List.of("node1 [p1.2, p1.3] pdb=0"), 4));
    cases.add(c("mixed priority pods are preempted, pick later StartTime one when priorities are"
        + " equal", FIT, null, TWO_NODES, pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1.1").node("node1").priority(LOW).req(SMALL).startTime(5).obj(),
            pod("p1.2").node("node1").priority(LOW).req(SMALL).startTime(4).obj(),
            pod("p1.3").node("node1").priority(MID).req(MEDIUM).startTime(3).obj(),
            pod("p1.4").node("node1").priority(HIGH).req(SMALL).startTime(2).obj(),
            pod("p2").node("node2").priority(HIGH).req(LARGE).startTime(1).obj()),
        List.of(), List.of("node1 [p1.1, p1.3] pdb=0"), 4));
    cases.add(new Case("pod with anti-affinity is preempted",
        b -> b.fit().interPodAffinity(), null, Map.of(), List.of("node1", "node2"),
        List.of(pod("p").label("foo", "").priority(HIGH).req(SMALL).obj()),
        List.of(pod("p1.1").node("node1").label("foo", "").priority(LOW).req(SMALL)
                .antiAffinityExists("foo", "hostname").obj(),
            pod("p1.2").node("node1").priority(MID).req(SMALL).obj(),
            pod("p1.3").node("node1").priority(HIGH).req(SMALL).obj(),
            pod("p2").node("node2").priority(HIGH).req(SMALL).obj()),
        List.of(), new int[] {0}, List.of(List.of("node1 [p1.1] pdb=0")), new int[] {3}));
    cases.add(new Case("preemption to resolve pod topology spread filter failure",
        PreemptionRuntime.Builder::podTopologySpread, null, Map.of(),
        List.of("node-a/zone1", "node-b/zone1", "node-x/zone2"),
        List.of(pod("p").label("foo", "").priority(HIGH).spreadConstraint(1, "zone", "foo")
            .spreadConstraint(1, "hostname", "foo").obj()),
        List.of(pod("pod-a1").node("node-a").label("foo", "").priority(MID).obj(),
            pod("pod-a2").node("node-a").label("foo", "").priority(LOW).obj(),
            pod("pod-b1").node("node-b").label("foo", "").priority(LOW).obj(),
            pod("pod-x1").node("node-x").label("foo", "").priority(HIGH).obj(),
            pod("pod-x2").node("node-x").label("foo", "").priority(HIGH).obj()),
        List.of(), new int[] {0},
        List.of(List.of("node-a [pod-a2] pdb=0", "node-b [pod-b1] pdb=0")), new int[] {5}));
    cases.add(c("get Unschedulable in the preemption phase when the filter plugins filtering the"
        + " nodes", FIT, Code.UNSCHEDULABLE, TWO_NODES, pod("p").priority(HIGH).req(LARGE).obj(),
        List.of(pod("p1").node("node1").priority(MID).req(LARGE).obj(),
            pod("p2").node("node2").priority(MID).req(LARGE).obj()),
        List.of(), List.of(), 2));
    List<Pod> twoFoo = List.of(
        pod("p1.1").node("node1").label("app", "foo").priority(MID).req(MEDIUM).obj(),
        pod("p1.2").node("node1").label("app", "foo").priority(MID).req(MEDIUM).obj());
    cases.add(c("preemption with violation of same pdb", FIT, null, List.of("node1"),
        pod("p").priority(HIGH).req(VERY_LARGE).obj(), twoFoo,
        List.of(pdb(null, "app", "foo", 1)), List.of("node1 [p1.1, p1.2] pdb=1"), 3));
    cases.add(c("preemption with violation of the pdb with pod whose eviction was processed, the"
        + " victim doesn't belong to DisruptedPods", FIT, null, List.of("node1"),
        pod("p").priority(HIGH).req(VERY_LARGE).obj(), twoFoo,
        List.of(pdb(null, "app", "foo", 1, "p2")), List.of("node1 [p1.1, p1.2] pdb=1"), 3));
    cases.add(c("preemption with violation of the pdb with pod whose eviction was processed, the"
        + " victim belongs to DisruptedPods", FIT, null, List.of("node1"),
        pod("p").priority(HIGH).req(VERY_LARGE).obj(), twoFoo,
        List.of(pdb(null, "app", "foo", 1, "p1.2")), List.of("node1 [p1.1, p1.2] pdb=0"), 3));
    cases.add(c("preemption with violation of the pdb with pod whose eviction was processed, the"
        + " victim which belongs to DisruptedPods is treated as 'nonViolating'", FIT, null,
        List.of("node1"), pod("p").priority(HIGH).req(VERY_LARGE).obj(),
        List.of(pod("p1.1").node("node1").label("app", "foo").priority(MID).req(MEDIUM).obj(),
            pod("p1.2").node("node1").label("app", "foo").priority(MID).req(MEDIUM).obj(),
            pod("p1.3").node("node1").label("app", "foo").priority(MID).req(MEDIUM).obj()),
        List.of(pdb(null, "app", "foo", 1, "p1.3")),
        List.of("node1 [p1.1, p1.2, p1.3] pdb=1"), 4));
    cases.add(new Case("all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        FIT, null, LIMIT_TO_TWO, FIVE_NODES, List.of(pod("p").priority(HIGH).req(LARGE).obj()),
        fivePods(MID, MID, MID, MID, MID, false), List.of(), new int[] {4},
        // offset 4 => node5 (yes), node1 (yes)
        List.of(List.of("node1 [p1] pdb=0", "node5 [p5] pdb=0")), new int[] {4}));
    cases.add(new Case("some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        FIT, null, LIMIT_TO_TWO, FIVE_NODES, List.of(pod("p").priority(HIGH).req(LARGE).obj()),
        fivePods(MID, VERY_HIGH, MID, MID, VERY_HIGH, false), List.of(), new int[] {4},
        // offset 4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
        List.of(List.of("node1 [p1] pdb=0", "node3 [p3] pdb=0")), new int[] {4}));
    cases.add(new Case("preemption offset across multiple scheduling cycles and wrap around",
        FIT, null, LIMIT_TO_TWO, FIVE_NODES,
        List.of(pod("tp1").priority(HIGH).req(LARGE).obj(),
            pod("tp2").priority(HIGH).req(LARGE).obj(),
            pod("tp3").priority(HIGH).req(LARGE).obj()),
        fivePods(MID, MID, MID, MID, MID, false), List.of(), new int[] {4, 1, 3},
        List.of(List.of("node1 [p1] pdb=0", "node5 [p5] pdb=0"),
            List.of("node2 [p2] pdb=0", "node3 [p3] pdb=0"),
            List.of("node4 [p4] pdb=0", "node5 [p5] pdb=0")),
        new int[] {4, 4, 4}));
    cases.add(new Case("preemption looks past numCandidates until a non-PDB violating node is"
        + " found", FIT, null,
        Map.of("minCandidateNodesPercentage", 40, "minCandidateNodesAbsolute", 2), FIVE_NODES,
        List.of(pod("p").priority(HIGH).req(LARGE).obj()),
        fivePods(MID, MID, MID, MID, MID, true), List.of(pdb(null, "app", "foo", 0)),
        new int[] {4},
        // offset 4 => node5 (yes, pdb), node1 (yes, pdb), node2 (list full), node3 (yes)
        List.of(List.of("node1 [p1] pdb=1", "node3 [p3] pdb=0", "node5 [p5] pdb=1")),
        new int[] {8}));
    return cases.stream();
  }

  /** p1..p5 on node1..node5, LARGE; with {@code foo}, p1, p2 and p5 carry app=foo. */
  private static List<Pod> fivePods(int p1, int p2, int p3, int p4, int p5, boolean foo) {
    int[] prio = {p1, p2, p3, p4, p5};
    List<Pod> out = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      PreemptionFixtures.TestPod p = pod("p" + i).node("node" + i).priority(prio[i - 1])
          .req(LARGE);
      if (foo && (i == 1 || i == 2 || i == 5)) {
        p.label("app", "foo");
      }
      out.add(p.obj());
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void findsCandidatesAsUpstream(Case tc) {
    FakeFilter fake = new FakeFilter(tc.fakeFilterCode());
    List<NodeInfo> nodes = new ArrayList<>(nodeInfos(topologyNodes(
        tc.nodeNames().toArray(String[]::new)), tc.initPods()));
    nodes.sort(Comparator.comparing(NodeInfo::nodeName));
    PreemptionRuntime.Builder b = PreemptionRuntime.builder()
        .plugin(FakeFilter.NAME, fake.factory());
    tc.plugins().accept(b);
    PreemptionRuntime rt = b.nodes(nodes).args(tc.args()).build();
    int before = 0;
    for (int cycle = 0; cycle < tc.testPods().size(); cycle++) {
      Pod pod = tc.testPods().get(cycle);
      CycleState state = rt.preFiltered(pod);
      DryRunPreemption.Result result = rt.plugin.dryRunPreemption(state, pod, nodes, tc.pdbs(),
          tc.offsets()[cycle], rt.plugin.calculateNumCandidates(nodes.size()));
      assertThat(render(result.candidates())).as("cycle %d candidates", cycle)
          .containsExactlyElementsOf(tc.expected().get(cycle));
      assertThat(fake.calls.get() - before).as("cycle %d filter calls", cycle)
          .isEqualTo(tc.expectedFilterCalls()[cycle]);
      before = fake.calls.get();
    }
  }

  @Test
  void dryRunWorksOnCopiesAndLeavesSnapshotAndCycleStateUntouched() {
    Pod preemptor = pod("p").label("foo", "").priority(HIGH).req(SMALL).obj();
    List<NodeInfo> nodes = nodeInfos(topologyNodes("node1"), List.of(
        pod("v").node("node1").label("foo", "").priority(LOW).req(SMALL)
            .antiAffinityExists("foo", "hostname").obj()));
    NodeInfo node1 = nodes.get(0);
    long generation = node1.generation();
    PreemptionRuntime rt = PreemptionRuntime.builder().fit().interPodAffinity().nodes(nodes)
        .build();
    CycleState state = rt.preFiltered(preemptor);
    assertThat(rt.fw.runFilterPlugins(state, preemptor, node1).isSuccess()).isFalse();

    DryRunPreemption.Result r = rt.plugin.dryRunPreemption(state, preemptor, nodes, List.of(), 0,
        1);

    assertThat(render(r.candidates())).containsExactly("node1 [v] pdb=0");
    assertThat(node1.pods()).extracting(pi -> pi.name()).containsExactly("v");
    assertThat(node1.generation()).isEqualTo(generation);
    // the anti-affinity counts in the cycle state still include the victim
    assertThat(rt.fw.runFilterPlugins(state, preemptor, node1).isSuccess()).isFalse();
  }

  /** Candidates sorted by node, victims sorted by name, as upstream's comparison. */
  static List<String> render(List<Candidate> candidates) {
    return candidates.stream().sorted(Comparator.comparing(Candidate::nodeName))
        .map(c -> c.nodeName() + " " + c.victims().stream().map(p -> p.getMetadata().getName())
            .sorted().toList() + " pdb=" + c.numPdbViolations())
        .toList();
  }
}
