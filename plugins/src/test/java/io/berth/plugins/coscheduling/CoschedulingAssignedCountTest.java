package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Permit's count of a group's assigned members: taken once for a group cycle's commit (every member permitted in a
 * row on the same members, snapshot and reserved pods) and taken afresh whenever any of these changed.
 */
class CoschedulingAssignedCountTest {
  private static final PodGroup PG = new PodGroup("ns", "pg", Instant.EPOCH, 4, Map.of(), Optional.empty());

  private static Pod[] members(int n) {
    Pod[] pods = new Pod[n];
    for (int i = 0; i < n; i++) {
      pods[i] = member("p" + i, "pg", "1");
    }
    return pods;
  }

  @Test
  void aCommitPermitsEveryMemberOnOneCount() {
    Pod[] pods = members(4);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 4));
    gang.snapshot = new VersionedLister(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    for (Pod p : pods) {
      plugin.reserve(new CycleState(), p, "n1"); // the group cycle places (and reserves) every member first
    }
    long before = plugin.memberCounts();
    for (Pod p : pods) {
      assertThat(plugin.permit(new CycleState(), p, "n1").status().isSuccess()).isTrue();
    }
    assertThat(plugin.memberCounts() - before).as("one count for the whole commit").isEqualTo(1);
  }

  @Test
  void aMemberUnreservedOrBoundIsSeenByTheNextCount() {
    Pod[] pods = members(4);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 4));
    gang.snapshot = new VersionedLister(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    for (Pod p : pods) {
      plugin.reserve(new CycleState(), p, "n1");
    }
    assertThat(plugin.assignedMembers(PG, pods[0])).isEqualTo(3);
    plugin.unreserve(new CycleState(), pods[1], "n1");
    assertThat(plugin.assignedMembers(PG, pods[0])).isEqualTo(2);
    assertThat(plugin.permit(new CycleState(), pods[0], "n1").status().code()).isEqualTo(Code.WAIT);
    // bound: no longer reserved, and counted through its nodeName once the informer shows it
    plugin.postBind(new CycleState(), pods[2], "n1");
    assertThat(plugin.assignedMembers(PG, pods[0])).isEqualTo(1);
    gang.pods(bound(pods[2], "n1"));
    assertThat(plugin.assignedMembers(PG, pods[0])).as("a changed member list is recounted").isEqualTo(2);
    plugin.reserve(new CycleState(), pods[1], "n1");
    assertThat(plugin.assignedMembers(PG, pods[0])).isEqualTo(3);
  }

  @Test
  void aBoundMembersNodeGoingAwayIsSeenThroughTheSnapshotsVersion() {
    Pod[] pods = members(4);
    NodeInfo n1 = NodeInfo.of(node("n1", "8"));
    NodeInfo n2 = NodeInfo.of(node("n2", "8"));
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(bound(pods[0], "n2"), pods[1], pods[2], pods[3])
        .groups(podGroup("pg", 4));
    VersionedLister snapshot = new VersionedLister(n1, n2);
    gang.snapshot = snapshot;
    Coscheduling plugin = gang.build();
    plugin.reserve(new CycleState(), pods[1], "n1");
    assertThat(plugin.assignedMembers(PG, pods[3])).isEqualTo(2);
    long counted = plugin.memberCounts();
    assertThat(plugin.assignedMembers(PG, pods[2])).isEqualTo(2);
    assertThat(plugin.memberCounts()).as("unchanged: reused").isEqualTo(counted);
    snapshot.nodes(n1); // n2 deleted: a new snapshot version
    assertThat(plugin.assignedMembers(PG, pods[3])).isEqualTo(1);
    // another snapshot object that happens to have the same version is not trusted
    gang.snapshot = new VersionedLister(n1, n2).nodes(n1, n2);
    assertThat(gang.snapshot.version()).isEqualTo(snapshot.version());
    assertThat(plugin.assignedMembers(PG, pods[3])).isEqualTo(2);
  }

  @Test
  void aSnapshotWithoutAVersionIsCountedEveryTime() {
    Pod[] pods = members(2);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 2))
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    plugin.reserve(new CycleState(), pods[0], "n1");
    long before = plugin.memberCounts();
    assertThat(plugin.assignedMembers(PG, pods[1])).isEqualTo(1);
    assertThat(plugin.assignedMembers(PG, pods[1])).isEqualTo(1);
    assertThat(plugin.memberCounts() - before).isEqualTo(2);
  }

  @Test
  void membersOfTheOtherApiAndTheExceptedPodDoNotCount() {
    Pod[] pods = members(3);
    Pod workload = new io.fabric8.kubernetes.api.model.PodBuilder(member("w", null, "1")).editSpec()
        .withNewSchedulingGroup().withPodGroupName("pg").endSchedulingGroup().endSpec().build();
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).pods(workload).groups(podGroup("pg", 3));
    gang.snapshot = new VersionedLister(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    for (Pod p : pods) {
      plugin.reserve(new CycleState(), p, "n1");
    }
    plugin.reserve(new CycleState(), workload, "n1");
    assertThat(plugin.assignedMembers(PG, pods[0])).isEqualTo(2);
    assertThat(plugin.assignedMembers(PG, workload)).isEqualTo(3);
  }

  @Test
  void threadsReservingAndReleasingTheirOwnMembersAlwaysSeeTheirOwnChanges() throws Exception {
    int threads = 4;
    int perThread = 40;
    Pod[] pods = members(threads * perThread);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", pods.length));
    gang.snapshot = new VersionedLister(NodeInfo.of(node("n1", "1000")));
    Coscheduling plugin = gang.build();
    PodGroup group = new PodGroup("ns", "pg", Instant.EPOCH, pods.length, Map.of(), Optional.empty());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t * perThread;
      results.add(pool.submit(() -> {
        go.await();
        for (int round = 0; round < 20; round++) {
          // a stale count (taken before this thread's own change) would break these bounds
          for (int i = 0; i < perThread; i++) {
            plugin.reserve(new CycleState(), pods[first + i], "n1");
            assertThat(plugin.assignedMembers(group, null)).isGreaterThanOrEqualTo(i + 1);
          }
          for (int i = 0; i < perThread; i++) {
            if (i % 2 == 0) {
              plugin.unreserve(new CycleState(), pods[first + i], "n1");
            } else {
              plugin.postBind(new CycleState(), pods[first + i], "n1");
            }
            assertThat(plugin.assignedMembers(group, null)).isLessThanOrEqualTo(pods.length - (i + 1));
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> r : results) {
      r.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(plugin.reservedMembers()).isZero();
    assertThat(plugin.assignedMembers(group, null)).isZero();
  }
}
