package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.bound;
import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The per-node member counts every group of one plugin shares. */
class NodeGroupsTest {
  private static final GroupRef A = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "a");
  private static final GroupRef B = new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "b");

  @Test
  void oneWalkOfANodeServesEveryGroup() {
    NodeInfo n1 = NodeInfo.of(node("n1", "8"), bound(member("a1", "a", "1"), "n1"),
        bound(member("a2", "a", "2"), "n1"), bound(member("b1", "b", "3"), "n1"), bound(member("x", null, "1"), "n1"));
    NodeGroups shared = new NodeGroups();
    assertThat(shared.of(n1, A).count()).isEqualTo(2);
    assertThat(shared.of(n1, A).used().milliCpu()).isEqualTo(3000);
    assertThat(shared.of(n1, B).count()).isEqualTo(1);
    assertThat(shared.of(n1, new GroupRef(GroupRef.Api.WORKLOAD, "ns", "a"))).isNull();
    // two groups' views over the one memo
    assertThat(new GroupNodes(A, shared).freeCapacity(List.of(n1), new String[] {"cpu"})[0])
        .isEqualTo(8000 - 7000 + 3000);
    assertThat(new GroupNodes(B, shared).freeCapacity(List.of(n1), new String[] {"cpu"})[0])
        .isEqualTo(8000 - 7000 + 3000);
    assertThat(shared.remembered()).isEqualTo(1);
  }

  @Test
  void aNewGenerationIsRecounted() {
    NodeInfo n1 = NodeInfo.of(node("n1", "8"));
    NodeGroups shared = new NodeGroups();
    assertThat(shared.of(n1, A)).isNull();
    n1.addPod(PodInfo.of(bound(member("a1", "a", "1"), "n1")));
    assertThat(shared.of(n1, A).count()).isEqualTo(1);
  }

  @Test
  void nodesNoLongerListedAreDroppedOnceTheMapHasGrown() {
    NodeGroups shared = new NodeGroups();
    List<NodeInfo> old = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      old.add(NodeInfo.of(node("old" + i, "1")));
    }
    GroupNodes view = new GroupNodes(A, shared);
    view.freeCapacity(old, new String[] {"cpu"});
    assertThat(shared.remembered()).isEqualTo(40);
    List<NodeInfo> now = List.of(NodeInfo.of(node("n1", "1")));
    view.freeCapacity(now, new String[] {"cpu"});
    assertThat(shared.remembered()).isEqualTo(1);
  }

  /**
   * Several groups' capacity checks from many threads while nodes change (new generations with members of either
   * group added): every answer equals the answer a fresh, unshared count gives for the nodes it was asked about.
   */
  @Test
  void concurrentLooksAgreeWithAFreshCount() throws Exception {
    NodeGroups shared = new NodeGroups();
    int nodes = 20;
    List<List<NodeInfo>> versions = new ArrayList<>();
    List<NodeInfo> current = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      current.add(NodeInfo.of(node("n" + i, "16")));
    }
    versions.add(List.copyOf(current));
    for (int v = 1; v < 30; v++) {
      int at = v % nodes;
      NodeInfo changed = current.get(at).snapshot();
      changed.addPod(PodInfo.of(bound(member("m" + v, v % 2 == 0 ? "a" : "b", "1"), "n" + at)));
      current.set(at, changed);
      versions.add(List.copyOf(current));
    }
    String[] names = {"cpu", "pods"};
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      results.add(pool.submit(() -> {
        go.await();
        int wrong = 0;
        for (int i = 0; i < 600; i++) {
          List<NodeInfo> version = versions.get((i * 7 + seed) % versions.size());
          GroupRef g = (i + seed) % 2 == 0 ? A : B;
          long[] got = new GroupNodes(g, shared).freeCapacity(version, names);
          long[] fresh = new GroupNodes(g).freeCapacity(version, names);
          if (got[0] != fresh[0] || got[1] != fresh[1]) {
            wrong++;
          }
        }
        return wrong;
      }));
    }
    go.countDown();
    for (Future<Integer> r : results) {
      assertThat(r.get(60, TimeUnit.SECONDS)).isZero();
    }
    pool.shutdown();
  }
}
