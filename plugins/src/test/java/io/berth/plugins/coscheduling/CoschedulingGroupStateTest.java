package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What Coscheduling keeps per group (member requests, members per node) goes when the group does. */
class CoschedulingGroupStateTest {
  private static final GroupRef PG = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg");

  @Test
  void aGroupsStateIsDroppedWhenPermitCompletesIt() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    NodeInfo n1 = NodeInfo.of(node("n1", "8"), bound(p1, "n1"));
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2)).nodes(n1);
    Coscheduling plugin = gang.build();
    assertThat(plugin.preFilter(new CycleState(), p2, List.of(n1)).status().isSuccess()).isTrue();
    assertThat(plugin.rememberedGroups()).isEqualTo(1);
    assertThat(plugin.permit(new CycleState(), p2, "n1").status().isSuccess()).isTrue();
    assertThat(plugin.rememberedGroups()).isZero();
  }

  @Test
  void aDeletedOrMissingGroupIsForgotten() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    NodeInfo n1 = NodeInfo.of(node("n1", "8"));
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2)).nodes(n1);
    Coscheduling plugin = gang.build();
    plugin.preFilter(new CycleState(), p1, List.of(n1));
    assertThat(plugin.rememberedGroups()).isEqualTo(1);
    plugin.forget(PG);
    assertThat(plugin.rememberedGroups()).isZero();
    plugin.preFilter(new CycleState(), p1, List.of(n1));
    assertThat(plugin.rememberedGroups()).isEqualTo(1);
    gang.groups.clear(); // the PodGroup is gone: the next look finds it missing
    assertThat(plugin.preFilter(new CycleState(), p1, List.of(n1)).status().message()).contains("does not exist");
    assertThat(plugin.rememberedGroups()).isZero();
  }

  @Test
  void manyGroupsKeepAtMostTheBound() {
    GangFixtures.Gang gang = new GangFixtures.Gang();
    NodeInfo n1 = NodeInfo.of(node("n1", "1000"));
    int groups = GroupStates.DEFAULT_CAPACITY * 3;
    Pod[] pods = new Pod[groups];
    for (int i = 0; i < groups; i++) {
      pods[i] = member("p" + i, "g" + i, "1");
      gang.groups(podGroup("g" + i, 1));
    }
    Coscheduling plugin = gang.pods(pods).nodes(n1).build();
    for (Pod p : pods) {
      assertThat(plugin.preFilter(new CycleState(), p, List.of(n1)).status().isSuccess()).isTrue();
    }
    assertThat(plugin.rememberedGroups()).isEqualTo(GroupStates.DEFAULT_CAPACITY);
  }

  @Test
  void permitCountsReservedMembersUntilUnreservedOrBound() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    Pod p3 = member("p3", "pg", "1");
    NodeInfo n1 = NodeInfo.of(node("n1", "8"));
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2, p3).groups(podGroup("pg", 3)).nodes(n1);
    Coscheduling plugin = gang.build();
    plugin.reserve(new CycleState(), p1, "n1");
    plugin.reserve(new CycleState(), p2, "n1");
    plugin.unreserve(new CycleState(), p2, "n1");
    assertThat(plugin.reservedMembers()).isEqualTo(1);
    // p1 reserved, p2 unreserved: p3 would be the second of three
    assertThat(plugin.permit(new CycleState(), p3, "n1").status().code()).isEqualTo(io.berth.framework.Code.WAIT);
    plugin.reserve(new CycleState(), p2, "n1");
    plugin.postBind(new CycleState(), p1, "n1");
    assertThat(plugin.reservedMembers()).as("a bound member counts through its nodeName").isEqualTo(1);
    gang.pods(bound(p1, "n1"));
    assertThat(plugin.permit(new CycleState(), p3, "n1").status().isSuccess()).isTrue();
  }
}
