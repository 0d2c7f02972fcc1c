package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PermitResult;
import io.berth.framework.PostFilterResult;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Permit, PostFilter and Unreserve as scheduler-plugins' TestPermit/TestPostFilter: members wait until minMember
 * are assumed or bound, are allowed together, time out together, and are rejected together.
 */
class CoschedulingPermitTest {

  @Test
  void podWithoutGroupIsAllowed() {
    Pod p = member("solo", null, "1");
    PermitResult r = new GangFixtures.Gang().pods(p).build().permit(new CycleState(), p, "n1");
    assertThat(r.status().isSuccess()).isTrue();
  }

  @Test
  void memberWaitsUntilMinMemberAreAssignedWithTheGroupsTimeout() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    Pod p3 = member("p3", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, p3)
        .groups(podGroup("pg", Map.of("minMember", 3, "scheduleTimeoutSeconds", 7), Instant.EPOCH))
        .nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1")));
    PermitResult r = gang.build().permit(new CycleState(), p2, "n1");
    assertThat(r.status().code()).isEqualTo(Code.WAIT);
    assertThat(r.timeout()).as("group timeout plus the framework backstop").isEqualTo(Duration.ofSeconds(12));
    assertThat(gang.activated).as("siblings are activated").contains("p3");
  }

  @Test
  void waitDefaultsToPermitWaitingTimeSeconds() {
    Pod p1 = member("p1", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, member("p2", "pg", "1")).groups(podGroup("pg", 2))
        .nodes(NodeInfo.of(node("n1", "8")));
    PermitResult r = gang.build(new CoschedulingArgs(20, 0)).permit(new CycleState(), p1, "n1");
    assertThat(r.timeout()).isEqualTo(Duration.ofSeconds(25));
  }

  @Test
  void lastMemberIsAllowedAndAllowsEveryWaitingMemberOfItsGroupOnly() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    Pod p3 = member("p3", "pg", "1");
    Pod stranger = member("s1", "other", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, p3, stranger)
        .groups(podGroup("pg", 3), podGroup("other", 2))
        .nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1"), bound(p2, "n1"), bound(stranger, "n1")));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    GangFixtures.FakeWaitingPod w2 = gang.waiting(p2);
    GangFixtures.FakeWaitingPod ws = gang.waiting(stranger);
    PermitResult r = gang.build().permit(new CycleState(), p3, "n1");
    assertThat(r.status().isSuccess()).isTrue();
    assertThat(w1.outcome()).isEqualTo("allowed");
    assertThat(w2.outcome()).isEqualTo("allowed");
    assertThat(ws.outcome()).isEqualTo("waiting");
  }

  @Test
  void timeoutRejectsEveryWaitingMemberNamingTheGroup() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, member("p3", "pg", "1"))
        .groups(podGroup("pg", Map.of("minMember", 3, "scheduleTimeoutSeconds", 1), Instant.EPOCH))
        .nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1")));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    Coscheduling plugin = gang.build();
    assertThat(plugin.permit(new CycleState(), p2, "n1").status().code()).isEqualTo(Code.WAIT);
    GangFixtures.FakeWaitingPod w2 = gang.waiting(p2);
    Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(w1.outcome()).isEqualTo("rejected: PodGroup \"ns/pg\" timed out after 1s waiting for "
          + "minMember 3 (2 members waiting)");
      assertThat(w2.outcome()).startsWith("rejected: PodGroup \"ns/pg\" timed out");
    });
  }

  @Test
  void allowingTheGroupCancelsItsTimeout() throws Exception {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2)
        .groups(podGroup("pg", Map.of("minMember", 2, "scheduleTimeoutSeconds", 1), Instant.EPOCH))
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    plugin.reserve(new CycleState(), p1, "n1"); // as the framework runs Reserve before Permit
    assertThat(plugin.permit(new CycleState(), p1, "n1").status().code()).isEqualTo(Code.WAIT);
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    gang.nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1")));
    assertThat(plugin.permit(new CycleState(), p2, "n1").status().isSuccess()).isTrue();
    Thread.sleep(1500);
    assertThat(w1.outcome()).isEqualTo("allowed");
  }

  @Test
  void unreserveRejectsTheOtherWaitingMembersOfTheGroupOnly() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    Pod stranger = member("s1", "other", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, stranger)
        .groups(podGroup("pg", 3), podGroup("other", 2));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    GangFixtures.FakeWaitingPod ws = gang.waiting(stranger);
    gang.build().unreserve(new CycleState(), p2, "n1");
    assertThat(w1.outcome()).isEqualTo("rejected: PodGroup \"ns/pg\" rejected: member \"ns/p2\" was unreserved");
    assertThat(ws.outcome()).isEqualTo("waiting");
  }

  @Test
  void postFilterRejectsTheWaitingMembersWhenTheGroupCannotMakeIt() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    Pod p3 = member("p3", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, p3).groups(podGroup("pg", 3))
        .nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1")));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    PostFilterResult r = gang.build().postFilter(new CycleState(), p3, null);
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(r.status().message()).isEqualTo("PodGroup \"ns/pg\" rejected: member \"ns/p3\" is unschedulable "
        + "even after PostFilter");
    assertThat(w1.outcome()).startsWith("rejected: PodGroup \"ns/pg\" rejected: member \"ns/p3\"");
  }

  @Test
  void postFilterLeavesAGroupWithinTenPercentOfMinMemberWaiting() {
    Pod[] pods = new Pod[11];
    NodeInfo n1 = NodeInfo.of(node("n1", "64"));
    for (int i = 0; i < 11; i++) {
      pods[i] = member("p" + i, "pg", "1");
      if (i < 9) {
        n1.addPod(io.berth.framework.PodInfo.of(bound(pods[i], "n1")));
      }
    }
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 10)).nodes(n1);
    GangFixtures.FakeWaitingPod w0 = gang.waiting(pods[0]);
    PostFilterResult r = gang.build().postFilter(new CycleState(), pods[10], null);
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(w0.outcome()).isEqualTo("waiting");
  }

  @Test
  void postFilterAfterTheGroupsOwnPreFilterRejectionRejectsNothing() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1).groups(podGroup("pg", 2))
        .nodes(NodeInfo.of(node("n1", "8")));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p2);
    Coscheduling plugin = gang.build(new CoschedulingArgs(60, 30));
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, p1, java.util.List.of(NodeInfo.of(node("n1", "8")))).status().isSuccess())
        .isFalse();
    PostFilterResult r = plugin.postFilter(state, p1, null);
    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(w1.outcome()).isEqualTo("waiting");
  }

  @Test
  void postFilterDoesNotRejectWhenMinMemberArePlaced() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 1))
        .nodes(NodeInfo.of(node("n1", "8"), bound(p1, "n1")));
    GangFixtures.FakeWaitingPod w1 = gang.waiting(p1);
    gang.build().postFilter(new CycleState(), p2, null);
    assertThat(w1.outcome()).isEqualTo("waiting");
  }
}
