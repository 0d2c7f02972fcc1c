package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static io.berth.plugins.coscheduling.WorkloadFixtures.basic;
import static io.berth.plugins.coscheduling.WorkloadFixtures.gang;
import static io.berth.plugins.coscheduling.WorkloadFixtures.workloadMember;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PermitResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Coscheduling for pods of kube-scheduler 1.36's v1alpha2 PodGroups, beside scheduler-plugins' PodGroups. */
class CoschedulingWorkloadApiTest {

  @Test
  void gangMembersAreHeldUntilMinCountPodsExist() {
    Pod p1 = workloadMember("p1", "train", "1");
    Pod p2 = workloadMember("p2", "train", "1");
    Status s = new GangFixtures.Gang().workloadGroups(gang("train", 3)).pods(p1, p2).build().preEnqueue(p1);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).isEqualTo("PodGroup \"ns/train\" has 2 of its minMember 3 pods: 1 missing");
  }

  @Test
  void memberOfAMissingWorkloadPodGroupIsHeld() {
    Pod p1 = workloadMember("p1", "ghost", "1");
    Status s = new GangFixtures.Gang().pods(p1).build().preEnqueue(p1);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("PodGroup \"ns/ghost\"").contains("does not exist");
  }

  @Test
  void basicPolicyPodsAreScheduledOneByOne() {
    Pod p1 = workloadMember("p1", "web", "1");
    GangFixtures.Gang g = new GangFixtures.Gang().workloadGroups(basic("web")).pods(p1)
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = g.build();
    assertThat(plugin.preEnqueue(p1).isSuccess()).isTrue();
    assertThat(plugin.permit(new CycleState(), p1, "n1").status().isSuccess()).isTrue();
  }

  @Test
  void membersWaitUpstreamsFiveMinutesAndAreAllowedTogether() {
    Pod p1 = workloadMember("p1", "train", "1");
    Pod p2 = workloadMember("p2", "train", "1");
    GangFixtures.Gang g = new GangFixtures.Gang().workloadGroups(gang("train", 2)).pods(p1, p2)
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = g.build(new CoschedulingArgs(20, 0));
    plugin.reserve(new CycleState(), p1, "n1"); // as the framework runs Reserve before Permit
    PermitResult first = plugin.permit(new CycleState(), p1, "n1");
    assertThat(first.status().code()).isEqualTo(Code.WAIT);
    assertThat(first.timeout()).as("300 s plus the framework backstop, not permitWaitingTimeSeconds")
        .isEqualTo(Duration.ofSeconds(305));
    GangFixtures.FakeWaitingPod w1 = g.waiting(p1);
    g.testHandle.withNodes(java.util.List.of(NodeInfo.of(node("n1", "8"), bound(p1, "n1"))));
    assertThat(plugin.permit(new CycleState(), p2, "n1").status().isSuccess()).isTrue();
    assertThat(w1.outcome()).isEqualTo("allowed");
  }

  @Test
  void sameNamedGroupsOfTheTwoApisDoNotShareMembers() {
    Pod x1 = member("x1", "same", "1");
    Pod w1 = workloadMember("w1", "same", "1");
    Pod w2 = workloadMember("w2", "same", "1");
    Coscheduling plugin = new GangFixtures.Gang().groups(podGroup("same", 2)).workloadGroups(gang("same", 2))
        .pods(x1, w1, w2).build();
    assertThat(plugin.preEnqueue(w1).isSuccess()).as("two v1alpha2 members").isTrue();
    assertThat(plugin.preEnqueue(x1).message()).as("one labelled member").contains("1 missing");
  }
}
