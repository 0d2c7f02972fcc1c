package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PreFilter as scheduler-plugins' TestPreFilter: member count, minResources and backoff, with the shortfall. */
class CoschedulingPreFilterTest {

  private static Status preFilter(GangFixtures.Gang gang, Pod pod, NodeInfo... nodes) {
    return gang.nodes(nodes).build().preFilter(new CycleState(), pod, List.of(nodes)).status();
  }

  @Test
  void podWithoutGroupPasses() {
    Pod p = member("solo", null, "1");
    assertThat(preFilter(new GangFixtures.Gang().pods(p), p, NodeInfo.of(node("n1", "1"))).isSuccess()).isTrue();
  }

  @Test
  void minResourcesBeyondFreeCapacityAreRejectedNamingResourceAndShortfall() {
    Pod p = member("p1", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p).groups(podGroup("pg",
        Map.of("minMember", 1, "minResources", Map.of("cpu", "8")), Instant.EPOCH));
    Status s = preFilter(gang, p, NodeInfo.of(node("n1", "4")), NodeInfo.of(node("n2", "4"),
        bound(member("other", null, "2"), "n2")));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).isEqualTo("PodGroup \"ns/pg\" does not fit the cluster's free capacity "
        + "(minResources): cpu: needs 8, 6 free, short by 2");
  }

  @Test
  void withoutMinResourcesTheMembersRequestsMustFit() {
    Pod[] members = new Pod[8];
    for (int i = 0; i < 8; i++) {
      members[i] = member("p" + i, "gang", "1");
    }
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(members).groups(podGroup("gang", 8));
    Status s = preFilter(gang, members[0], NodeInfo.of(node("n1", "3")), NodeInfo.of(node("n2", "3")));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("PodGroup \"ns/gang\"").contains("requests of 8 members")
        .contains("cpu: needs 8, 6 free, short by 2");
  }

  @Test
  void theGroupsOwnPlacedMembersCountAsFree() {
    Pod p1 = member("p1", "pg", "2");
    Pod p2 = member("p2", "pg", "2");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2));
    Status s = preFilter(gang, p2, NodeInfo.of(node("n1", "4"), bound(p1, "n1")));
    assertThat(s.isSuccess()).as(s.message()).isTrue();
  }

  @Test
  void groupThatFitsPasses() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg",
        Map.of("minMember", 2, "minResources", Map.of("cpu", "2", "memory", "1Gi")), Instant.EPOCH));
    assertThat(preFilter(gang, p1, NodeInfo.of(node("n1", "2"))).isSuccess()).isTrue();
  }

  @Test
  void tooFewMembersAreRejectedAtPreFilterToo() {
    Pod p1 = member("p1", "pg", "1");
    Status s = preFilter(new GangFixtures.Gang().pods(p1).groups(podGroup("pg", 3)), p1,
        NodeInfo.of(node("n1", "8")));
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("2 missing");
  }

  @Test
  void aGroupRejectedAtPostFilterBacksOffAsOne() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2))
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build(new CoschedulingArgs(60, 30));
    plugin.postFilter(new CycleState(), p1, null);
    Status s = plugin.preFilter(new CycleState(), p2, List.of(NodeInfo.of(node("n1", "8")))).status();
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("PodGroup \"ns/pg\" failed recently and backs off until");
  }

  @Test
  void withoutBackoffSecondsTheGroupRetriesAtOnce() {
    Pod p1 = member("p1", "pg", "1");
    Pod p2 = member("p2", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2))
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    plugin.postFilter(new CycleState(), p1, null);
    assertThat(plugin.preFilter(new CycleState(), p2, List.of(NodeInfo.of(node("n1", "8")))).status().isSuccess())
        .isTrue();
  }
}
