package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * GroupCapacity: the walk over the nodes ends once every requested resource is covered, and a short resource's free
 * capacity is still summed over every node (the message shows it).
 */
class GroupCapacityTest {
  private static final GroupRef PG = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg");
  private static final long GI = 1024L * 1024 * 1024;

  private static List<NodeInfo> nodes(int n, String cpu) {
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(NodeInfo.of(node("n" + i, cpu)));
    }
    return out;
  }

  private static Map<String, Long> required(Object... kv) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
    }
    return m;
  }

  @Test
  void aGroupThatFitsLooksAtTheFirstNodesOnly() {
    GroupNodes group = new GroupNodes(PG);
    List<NodeInfo> nodes = nodes(100, "4");
    assertThat(GroupCapacity.shortfalls(required("cpu", 8000, "memory", GI), nodes, group)).isEmpty();
    assertThat(group.remembered()).as("two nodes of 4 cpu cover 8").isEqualTo(2);
  }

  @Test
  void aShortResourceIsSummedOverEveryNodeEvenWhenAnotherIsCoveredAtOnce() {
    GroupNodes group = new GroupNodes(PG);
    List<NodeInfo> nodes = nodes(10, "4"); // 64Gi each
    List<String> short_ = GroupCapacity.shortfalls(required("cpu", 1000, "memory", 700 * GI), nodes, group);
    assertThat(short_).containsExactly("memory: needs " + 700 * GI + ", " + 640 * GI + " free, short by "
        + 60 * GI);
    assertThat(group.remembered()).isEqualTo(10);
  }

  @Test
  void everyShortResourceIsReportedInTheOrderRequested() {
    GroupNodes group = new GroupNodes(PG);
    List<NodeInfo> nodes = nodes(3, "2");
    assertThat(GroupCapacity.shortfalls(required("memory", 200 * GI, "cpu", 7000, "pods", 10), nodes, group))
        .containsExactly("memory: needs " + 200 * GI + ", " + 192 * GI + " free, short by " + 8 * GI,
            "cpu: needs 7, 6 free, short by 1");
  }

  @Test
  void resourcesRequestedAtZeroNeverHoldTheWalkOpen() {
    GroupNodes group = new GroupNodes(PG);
    List<NodeInfo> nodes = nodes(50, "4");
    assertThat(GroupCapacity.shortfalls(required("cpu", 1000, "ephemeral-storage", 0, "example.com/gpu", 0),
        nodes, group)).isEmpty();
    assertThat(group.remembered()).isEqualTo(1);
    GroupNodes nothing = new GroupNodes(PG);
    assertThat(GroupCapacity.shortfalls(required("cpu", 0), nodes, nothing)).isEmpty();
    assertThat(nothing.remembered()).isZero();
  }

  @Test
  void theGroupsOwnMembersCountAsFreeOnTheNodesWalked() {
    GroupNodes group = new GroupNodes(PG);
    // n0 full of other pods and the group's own 3 cpu; n1 empty
    NodeInfo n0 = NodeInfo.of(node("n0", "4"), bound(member("x", null, "1"), "n0"),
        bound(member("m1", "pg", "3"), "n0"));
    NodeInfo n1 = NodeInfo.of(node("n1", "4"));
    assertThat(GroupCapacity.shortfalls(required("cpu", 7000), List.of(n0, n1), group)).isEmpty();
    assertThat(GroupCapacity.shortfalls(required("cpu", 7001), List.of(n0, n1), group))
        .containsExactly("cpu: needs 7001m, 7 free, short by 1m");
  }

  @Test
  void preFilterRecomputesTheVerdictWhenTheNodesChange() {
    Pod p1 = member("p1", "pg", "3");
    Pod p2 = member("p2", "pg", "3");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(p1, p2).groups(podGroup("pg", 2));
    List<NodeInfo> small = List.of(NodeInfo.of(node("n1", "4")));
    VersionedLister snapshot = new VersionedLister(small.toArray(NodeInfo[]::new));
    gang.snapshot = snapshot;
    Coscheduling plugin = gang.build();
    Status s = plugin.preFilter(new CycleState(), p1, small).status();
    assertThat(s.message()).endsWith("cpu: needs 6, 4 free, short by 2");
    // a node added: a new snapshot version, a new verdict
    List<NodeInfo> grown = List.of(small.get(0), NodeInfo.of(node("n2", "4")));
    snapshot.nodes(grown.toArray(NodeInfo[]::new));
    assertThat(plugin.preFilter(new CycleState(), p1, grown).status().isSuccess()).isTrue();
    // a node's pods changed: the other member placed elsewhere takes 3 of n2's 4
    List<NodeInfo> used = List.of(small.get(0), NodeInfo.of(node("n2", "4"), bound(member("y", null, "3"), "n2")));
    snapshot.nodes(used.toArray(NodeInfo[]::new));
    assertThat(plugin.preFilter(new CycleState(), p2, used).status().message())
        .endsWith("cpu: needs 6, 5 free, short by 1");
  }
}
