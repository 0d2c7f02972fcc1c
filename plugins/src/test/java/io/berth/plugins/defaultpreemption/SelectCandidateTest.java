package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MEDIUM;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MID;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.NEG;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.SMALL;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_LARGE;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.topologyNodes;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code TestSelectBestCandidate}, translated (dry run with NodeResourcesFit, then
 * {@code pickOneNodeForPreemption}), plus direct checks of each tie-breaking rule in order.
 */
class SelectCandidateTest {
  record Case(String name, List<String> nodeNames, Pod pod, List<Pod> pods,
      List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    Pod big = pod("p").priority(HIGH).req(VERY_LARGE).obj();
    List<String> three = List.of("node1", "node2", "node3");
    return Stream.of(
        new Case("a pod that fits on both nodes when lower priority pods are preempted",
            List.of("node1", "node2"), pod("p").priority(HIGH).req(LARGE).obj(),
            List.of(pod("p1").node("node1").priority(MID).req(LARGE).startTime(0).obj(),
                pod("p2").node("node2").priority(MID).req(LARGE).startTime(0).obj()),
            List.of("node1", "node2")),
        new Case("node with min highest priority pod is picked", three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p1.2").node("node1").priority(MID).req(LARGE).startTime(0).obj(),
            pod("p2.1").node("node2").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p2.2").node("node2").priority(LOW).req(MEDIUM).startTime(0).obj(),
            pod("p3.1").node("node3").priority(LOW).req(MEDIUM).startTime(0).obj(),
            pod("p3.2").node("node3").priority(LOW).req(MEDIUM).startTime(0).obj()),
            List.of("node3")),
        new Case("when highest priorities are the same, minimum sum of priorities is picked",
            three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p1.2").node("node1").priority(MID).req(LARGE).startTime(0).obj(),
            pod("p2.1").node("node2").priority(MID).req(LARGE).startTime(0).obj(),
            pod("p2.2").node("node2").priority(LOW).req(MEDIUM).startTime(0).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p3.2").node("node3").priority(MID).req(MEDIUM).startTime(0).obj()),
            List.of("node2")),
        new Case("when highest priority and sum are the same, minimum number of pods is picked",
            three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p1.2").node("node1").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p1.3").node("node1").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p1.4").node("node1").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p2.1").node("node2").priority(MID).req(LARGE).startTime(0).obj(),
            pod("p2.2").node("node2").priority(NEG).req(MEDIUM).startTime(0).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p3.2").node("node3").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p3.3").node("node3").priority(LOW).req(SMALL).startTime(0).obj()),
            List.of("node2")),
        new Case("sum of adjusted priorities is considered", three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p1.2").node("node1").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p1.3").node("node1").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p2.1").node("node2").priority(MID).req(LARGE).startTime(0).obj(),
            pod("p2.2").node("node2").priority(NEG).req(MEDIUM).startTime(0).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p3.2").node("node3").priority(NEG).req(SMALL).startTime(0).obj(),
            pod("p3.3").node("node3").priority(LOW).req(SMALL).startTime(0).obj()),
            List.of("node2")),
        new Case("non-overlapping lowest high priority, sum priorities, and number of pods",
            List.of("node1", "node2", "node3", "node4"),
            pod("p").priority(VERY_HIGH).req(VERY_LARGE).obj(), List.of(
            pod("p1.1").node("node1").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p1.2").node("node1").priority(LOW).req(SMALL).startTime(0).obj(),
            pod("p1.3").node("node1").priority(LOW).req(SMALL).startTime(0).obj(),
            pod("p2.1").node("node2").priority(HIGH).req(LARGE).startTime(0).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p3.2").node("node3").priority(LOW).req(SMALL).startTime(0).obj(),
            pod("p3.3").node("node3").priority(LOW).req(SMALL).startTime(0).obj(),
            pod("p3.4").node("node3").priority(LOW).req(MEDIUM).startTime(0).obj(),
            pod("p4.1").node("node4").priority(MID).req(MEDIUM).startTime(0).obj(),
            pod("p4.2").node("node4").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p4.3").node("node4").priority(MID).req(SMALL).startTime(0).obj(),
            pod("p4.4").node("node4").priority(NEG).req(SMALL).startTime(0).obj()),
            List.of("node1")),
        new Case("same priority, same number of victims, different start time for each node's pod",
            three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(MEDIUM).startTime(2).obj(),
            pod("p1.2").node("node1").priority(MID).req(MEDIUM).startTime(2).obj(),
            pod("p2.1").node("node2").priority(MID).req(MEDIUM).startTime(3).obj(),
            pod("p2.2").node("node2").priority(MID).req(MEDIUM).startTime(3).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(1).obj(),
            pod("p3.2").node("node3").priority(MID).req(MEDIUM).startTime(1).obj()),
            List.of("node2")),
        new Case("same priority, same number of victims, different start time for all pods",
            three, big, List.of(
            pod("p1.1").node("node1").priority(MID).req(MEDIUM).startTime(4).obj(),
            pod("p1.2").node("node1").priority(MID).req(MEDIUM).startTime(2).obj(),
            pod("p2.1").node("node2").priority(MID).req(MEDIUM).startTime(5).obj(),
            pod("p2.2").node("node2").priority(MID).req(MEDIUM).startTime(1).obj(),
            pod("p3.1").node("node3").priority(MID).req(MEDIUM).startTime(3).obj(),
            pod("p3.2").node("node3").priority(MID).req(MEDIUM).startTime(6).obj()),
            List.of("node3")),
        new Case("different priority, same number of victims, different start time for all pods",
            three, big, List.of(
            pod("p1.1").node("node1").priority(LOW).req(MEDIUM).startTime(4).obj(),
            pod("p1.2").node("node1").priority(MID).req(MEDIUM).startTime(2).obj(),
            pod("p2.1").node("node2").priority(MID).req(MEDIUM).startTime(6).obj(),
            pod("p2.2").node("node2").priority(LOW).req(MEDIUM).startTime(1).obj(),
            pod("p3.1").node("node3").priority(LOW).req(MEDIUM).startTime(3).obj(),
            pod("p3.2").node("node3").priority(MID).req(MEDIUM).startTime(5).obj()),
            List.of("node2")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void picksTheNodeUpstreamPicks(Case tc) {
    List<NodeInfo> nodes = nodeInfos(topologyNodes(tc.nodeNames().toArray(String[]::new)),
        tc.pods());
    PreemptionRuntime rt = PreemptionRuntime.builder().fit().nodes(nodes).build();
    CycleState state = rt.preFiltered(tc.pod());
    DryRunPreemption.Result r = rt.plugin.dryRunPreemption(state, tc.pod(), nodes, List.of(), 0,
        rt.plugin.calculateNumCandidates(nodes.size()));
    Optional<Candidate> chosen = rt.plugin.selectCandidate(r.candidates());
    assertThat(chosen).isPresent();
    assertThat(chosen.get().nodeName()).isIn(tc.expected());
  }

  private static final CandidateSelection SELECTION = new CandidateSelection(
      new VictimOrdering(Clock.fixed(Instant.ofEpochSecond(100), ZoneOffset.UTC)));

  private static Candidate cand(String node, int pdbViolations, Pod... victims) {
    return new Candidate(node, List.of(victims), pdbViolations);
  }

  @Test
  void fewerPdbViolationsBeatLowerPriorityVictims() {
    Candidate violating = cand("a", 1, pod("v1").priority(LOW).obj());
    Candidate clean = cand("b", 0, pod("v2").priority(HIGH).obj());
    assertThat(SELECTION.pick(List.of(violating, clean))).contains(clean);
  }

  @Test
  void lowerHighestPriorityBeatsFewerVictims() {
    Candidate one = cand("a", 0, pod("v1").priority(MID).obj());
    Candidate two = cand("b", 0, pod("v2").priority(LOW).obj(), pod("v3").priority(LOW).obj());
    assertThat(SELECTION.pick(List.of(one, two))).contains(two);
  }

  @Test
  void shiftedSumMakesMoreNegativeVictimsWorse() {
    // Unshifted, -100 + -100 < -100 would prefer evicting two pods; shifted it does not.
    Candidate two = cand("a", 0, pod("v1").priority(NEG).obj(), pod("v2").priority(NEG).obj());
    Candidate one = cand("b", 0, pod("v3").priority(NEG).obj());
    assertThat(SELECTION.pick(List.of(two, one))).contains(one);
  }

  @Test
  void laterStartOfHighestPriorityVictimsWinsThenTheFirstCandidate() {
    Candidate old = cand("a", 0, pod("v1").priority(MID).startTime(1).obj());
    Candidate young = cand("b", 0, pod("v2").priority(MID).startTime(9).obj());
    assertThat(SELECTION.pick(List.of(old, young))).contains(young);
    Candidate twin = cand("c", 0, pod("v3").priority(MID).startTime(9).obj());
    assertThat(SELECTION.pick(List.of(young, twin))).contains(young);
    assertThat(SELECTION.pick(List.of(twin, young))).contains(twin);
  }

  @Test
  void unstartedVictimsCountAsStartingNow() {
    Candidate started = cand("a", 0, pod("v1").priority(MID).startTime(50).obj());
    Candidate unstarted = cand("b", 0, pod("v2").priority(MID).obj());
    assertThat(SELECTION.pick(List.of(started, unstarted))).contains(unstarted);
  }

  @Test
  void noCandidatesPicksNothing() {
    assertThat(SELECTION.pick(List.of())).isEmpty();
  }
}
