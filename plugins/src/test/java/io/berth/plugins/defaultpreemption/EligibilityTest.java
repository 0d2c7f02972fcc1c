package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.ONE_POD;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PostFilterResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's {@code TestPodEligibleToPreemptOthers}, translated, and what PostFilter answers for
 * a pod that may not preempt: Unschedulable with upstream's message, no nomination change and no
 * victims (the runtime has no API client, so any eviction would fail the call).
 */
class EligibilityTest {
  private static final String DISRUPTION_TARGET = "DisruptionTarget";
  private static final String BY_SCHEDULER = "PreemptionByScheduler";

  record Case(String name, Pod pod, List<Pod> pods, List<String> nodes, Status nominatedStatus,
      Optional<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    Pod nominated = pod("p_with_nominated_node").uid("p").priority(HIGH)
        .nominatedNodeName("node1").obj();
    return Stream.of(
        new Case("Pod with nominated node", nominated,
            List.of(pod("p1").priority(LOW).node("node1").terminating()
                .condition(DISRUPTION_TARGET, "True", BY_SCHEDULER).obj()),
            List.of("node1"),
            Status.unresolvable("node(s) had untolerated taint"), Optional.empty()),
        new Case("Pod without nominated node",
            pod("p_without_nominated_node").uid("p").priority(HIGH).obj(), List.of(), List.of(),
            Status.unresolvable(), Optional.empty()),
        new Case("Pod with 'PreemptNever' preemption policy",
            pod("p_with_preempt_never_policy").uid("p").priority(HIGH).preemptionPolicy("Never")
                .obj(), List.of(), List.of(), Status.unresolvable(),
            Optional.of("not eligible due to preemptionPolicy=Never.")),
        new Case("preemption victim pod terminating, as indicated by the dedicated"
            + " DisruptionTarget condition", nominated,
            List.of(pod("p1").priority(LOW).node("node1").terminating()
                .condition(DISRUPTION_TARGET, "True", BY_SCHEDULER).obj()),
            List.of("node1"), Status.unschedulable(),
            Optional.of("not eligible due to a terminating pod on the nominated node.")),
        new Case("non-victim Pods terminating", nominated,
            List.of(pod("p1").priority(LOW).node("node1").terminating().obj()),
            List.of("node1"), Status.unschedulable(), Optional.empty()),
        new Case("terminating victim of equal priority does not hold the pod back", nominated,
            List.of(pod("p1").priority(HIGH).node("node1").terminating()
                .condition(DISRUPTION_TARGET, "True", BY_SCHEDULER).obj()),
            List.of("node1"), Status.unschedulable(), Optional.empty()),
        new Case("victim marked but not yet terminating does not hold the pod back", nominated,
            List.of(pod("p1").priority(LOW).node("node1")
                .condition(DISRUPTION_TARGET, "True", BY_SCHEDULER).obj()),
            List.of("node1"), Status.unschedulable(), Optional.empty()),
        new Case("nominated node no longer in the snapshot", nominated, List.of(), List.of(),
            Status.unschedulable(), Optional.empty()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void eligibilityAsUpstream(Case tc) {
    PreemptionRuntime rt = PreemptionRuntime.builder()
        .nodes(nodeInfos(tc.nodes().stream().map(n -> node(n, ONE_POD)).toList(), tc.pods()))
        .build();
    assertThat(rt.plugin.ineligibility(tc.pod(), tc.nominatedStatus()))
        .isEqualTo(tc.expected());
  }

  @Test
  void preemptNeverIsUnschedulableWithoutNominationOrVictims() {
    Pod preemptor = pod("p").namespace("default").priority(HIGH).preemptionPolicy("Never").obj();
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .nodes(nodeInfos(List.of(node("node1", ONE_POD)),
            List.of(pod("p1").namespace("default").node("node1").obj())))
        .build();
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Too many pods"));
    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(r.status().message())
        .isEqualTo("preemption: not eligible due to preemptionPolicy=Never.");
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.NOOP);
  }

  @Test
  void waitingForEarlierVictimsIsUnschedulableAndKeepsTheNomination() {
    Pod preemptor = pod("p").namespace("default").priority(HIGH).nominatedNodeName("node1").obj();
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .nodes(nodeInfos(List.of(node("node1", ONE_POD)),
            List.of(pod("p1").namespace("default").priority(LOW).node("node1").terminating()
                .condition(DISRUPTION_TARGET, "True", BY_SCHEDULER).obj())))
        .build();
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Too many pods"));
    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(r.status().message())
        .isEqualTo("preemption: not eligible due to a terminating pod on the nominated node.");
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.NOOP);
  }
}
