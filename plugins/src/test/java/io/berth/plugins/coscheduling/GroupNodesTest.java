package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GroupNodes: the group's members per node, recounted when a node's generation changes. */
class GroupNodesTest {
  private static final GroupRef PG = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg");
  private static final String[] CPU_PODS = {"cpu", "pods"};

  @Test
  void membersCountAsFreeAndOthersAsUsed() {
    NodeInfo n1 = NodeInfo.of(node("n1", "4"), bound(member("m1", "pg", "1"), "n1"),
        bound(member("x", null, "2"), "n1"));
    NodeInfo n2 = NodeInfo.of(node("n2", "4"), bound(member("y", "other", "3"), "n2"));
    GroupNodes nodes = new GroupNodes(PG);
    long[] free = nodes.freeCapacity(List.of(n1, n2), CPU_PODS);
    assertThat(free[0]).isEqualTo(2000 + 1000);
    assertThat(free[1]).isEqualTo(110 - 1 + 110 - 1);
    assertThat(nodes.placed(List.of(n1, n2))).isEqualTo(1);
  }

  @Test
  void aNodeWhosePodsChangedIsRecountedAndAnUnchangedOneIsNot() {
    NodeInfo n1 = NodeInfo.of(node("n1", "4"));
    GroupNodes nodes = new GroupNodes(PG);
    assertThat(nodes.placed(List.of(n1))).isZero();
    // a group cycle's amendment: a copy of the node with a member added (a new generation)
    NodeInfo amended = n1.snapshot();
    amended.addPod(PodInfo.of(bound(member("m1", "pg", "1"), "n1")));
    assertThat(nodes.placed(List.of(amended))).isEqualTo(1);
    assertThat(nodes.freeCapacity(List.of(amended), CPU_PODS)[0]).isEqualTo(4000);
    // reverted: the old NodeInfo (its old generation) is recounted as it is
    assertThat(nodes.placed(List.of(n1))).isZero();
    assertThat(nodes.remembered()).isEqualTo(1);
  }

  @Test
  void membersOfTheSameNameInTheOtherApiAreNotMembers() {
    NodeInfo n1 = NodeInfo.of(node("n1", "4"), bound(member("m1", "pg", "1"), "n1"));
    GroupNodes workload = new GroupNodes(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "pg"));
    assertThat(workload.placed(List.of(n1))).isZero();
  }
}
