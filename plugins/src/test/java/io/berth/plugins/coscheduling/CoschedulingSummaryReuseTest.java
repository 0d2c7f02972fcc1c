package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The member summary PreEnqueue and PreFilter share: taken once for an unchanged member list of one group (the
 * siblings of a group that just became complete pass PreEnqueue in a row), taken afresh when the list, the group or
 * its minMember changed.
 */
class CoschedulingSummaryReuseTest {

  private static Pod[] members(String group, int n) {
    Pod[] pods = new Pod[n];
    for (int i = 0; i < n; i++) {
      pods[i] = member(group + "-" + i, group, "1");
    }
    return pods;
  }

  @Test
  void siblingsPassingPreEnqueueInARowShareOneSummaryWithTheFirstPreFilter() {
    Pod[] pods = members("pg", 5);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 5))
        .nodes(NodeInfo.of(node("n1", "8")));
    Coscheduling plugin = gang.build();
    long before = plugin.summaries();
    for (Pod p : pods) {
      assertThat(plugin.preEnqueue(p).isSuccess()).isTrue();
    }
    assertThat(plugin.preFilter(new CycleState(), pods[0], gang.testHandle.snapshotLister().list()).status()
        .isSuccess()).isTrue();
    assertThat(plugin.summaries() - before).isEqualTo(1);
  }

  @Test
  void aChangedListIsRecountedAndHeldAgainWhenAMemberIsGated() {
    Pod[] pods = members("pg", 3);
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(pods).groups(podGroup("pg", 4));
    Coscheduling plugin = gang.build();
    assertThat(plugin.preEnqueue(pods[0]).message()).endsWith("has 3 of its minMember 4 pods: 1 missing");
    Pod late = member("pg-3", "pg", "1");
    gang.pods(late);
    assertThat(plugin.preEnqueue(late).isSuccess()).isTrue();
    // a fifth member that is gated only adds to the gated count
    gang.pods(new PodBuilder(member("pg-4", "pg", "1")).editSpec().addNewSchedulingGate().withName("g")
        .endSchedulingGate().endSpec().build());
    assertThat(plugin.preEnqueue(pods[0]).isSuccess()).isTrue();
    // minMember raised: the same list is counted against it
    gang.groups(podGroup("pg", 6));
    assertThat(plugin.preEnqueue(pods[0]).message())
        .isEqualTo("PodGroup \"ns/pg\" has 4 of its minMember 6 pods: 2 missing (1 gated pods do not count)");
  }

  @Test
  void theSameNameInTheOtherApiIsAnotherGroup() {
    Pod[] labelled = members("pg", 2);
    Pod workload = WorkloadFixtures.workloadMember("w-0", "pg", "1");
    GangFixtures.Gang gang = new GangFixtures.Gang().pods(labelled).pods(workload).groups(podGroup("pg", 2))
        .workloadGroups(WorkloadFixtures.gang("pg", 2));
    Coscheduling plugin = gang.build();
    assertThat(plugin.preEnqueue(labelled[0]).isSuccess()).isTrue();
    // one list (the index files both under ns/pg), two groups: the workload gang has one member of two
    Status s = plugin.preEnqueue(workload);
    assertThat(s.message()).startsWith("PodGroup \"ns/pg\" has 1 of its minMember 2 pods");
    assertThat(plugin.preEnqueue(labelled[1]).isSuccess()).isTrue();
  }

  @Test
  void threadsAskingForDifferentGroupsEachGetTheirOwnGroupsCounts() throws Exception {
    int groups = 6;
    GangFixtures.Gang gang = new GangFixtures.Gang();
    List<Pod[]> byGroup = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      // group g has g + 1 members and needs g + 2: held, one missing; the message says how many it has
      Pod[] pods = members("g" + g, g + 1);
      byGroup.add(pods);
      gang.pods(pods).groups(podGroup("g" + g, Map.of("minMember", g + 2), Instant.EPOCH));
    }
    Coscheduling plugin = gang.build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> results = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int seed = t;
      results.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < 5_000; i++) {
          int g = (i + seed) % groups;
          Pod[] pods = byGroup.get(g);
          Status s = plugin.preEnqueue(pods[i % pods.length]);
          assertThat(s.message()).isEqualTo("PodGroup \"ns/g" + g + "\" has " + (g + 1) + " of its minMember "
              + (g + 2) + " pods: 1 missing");
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> r : results) {
      r.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
  }
}
