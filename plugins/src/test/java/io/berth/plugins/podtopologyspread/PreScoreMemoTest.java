package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HONOR;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HOSTNAME;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.UNSCHEDULABLE_TAINT;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.ZONE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.matchLabels;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.systemPlugin;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeInfoLister;
import io.berth.framework.NodeScore;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.ListNodeInfoLister;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PreScore reuses per-node matching pod counts across cycles ({@link MatchCountMemo}): a
 * long-lived plugin, over randomly changing snapshots (pods added, removed or terminating, nodes
 * added, removed and reordered), must score exactly as a fresh plugin that counts every node, for
 * system-default and own constraints, in several namespaces, with node inclusion policies and
 * matchLabelKeys; and so must many threads sharing one plugin.
 */
class PreScoreMemoTest {
  private static final String[] NAMESPACES = {"default", "other"};

  private static ReplicaSet replicaSet(String name, String namespace, String app) {
    return new ReplicaSetBuilder().withNewMetadata().withName(name).withNamespace(namespace)
        .endMetadata().withNewSpec().withSelector(matchLabels("app", app)).endSpec().build();
  }

  private static TestHandle handle(List<NodeInfo> nodes) {
    return new TestHandle().withNodes(nodes)
        .withObjects(replicaSet("web", "default", "web"), replicaSet("web", "other", "web"),
            replicaSet("db", "default", "db"));
  }

  private static Node randomNode(Random random, String name) {
    SpreadFixtures.NodeWrapper n = node(name).label(HOSTNAME, name);
    if (random.nextInt(8) != 0) {
      n.label(ZONE, "zone" + random.nextInt(3));
    }
    if (random.nextBoolean()) {
      n.label("disk", "ssd");
    }
    if (random.nextInt(6) == 0) {
      n.taint(UNSCHEDULABLE_TAINT);
    }
    return n.obj();
  }

  private static Pod randomPod(Random random, String name, String nodeName) {
    SpreadFixtures.PodWrapper p = pod(name).node(nodeName)
        .namespace(NAMESPACES[random.nextInt(NAMESPACES.length)])
        .label("app", random.nextBoolean() ? "web" : "db")
        .label("tier", random.nextBoolean() ? "a" : "b");
    if (random.nextInt(10) == 0) {
      p.terminating();
    }
    return p.obj();
  }

  private static List<NodeInfo> randomCluster(Random random, int nodes) {
    List<NodeInfo> out = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String name = "node-" + i;
      NodeInfo info = NodeInfo.of(randomNode(random, name));
      for (int j = random.nextInt(6); j > 0; j--) {
        info.addPod(PodInfo.of(randomPod(random, name + "-init-" + j, name)));
      }
      out.add(info);
    }
    return out;
  }

  /** The next snapshot: a few nodes get a pod more or less, sometimes a node comes or goes. */
  private static List<NodeInfo> mutate(Random random, List<NodeInfo> infos, int round,
      int[] nextNode) {
    List<NodeInfo> next = new ArrayList<>(infos);
    for (int k = 1 + random.nextInt(3); k > 0; k--) {
      int i = random.nextInt(next.size());
      NodeInfo copy = next.get(i).snapshot();
      if (random.nextBoolean() || copy.pods().isEmpty()) {
        copy.addPod(PodInfo.of(randomPod(random, "r" + round + "-" + k, copy.nodeName())));
      } else {
        copy.removePod(copy.pods().get(random.nextInt(copy.pods().size())).pod());
      }
      next.set(i, copy);
    }
    switch (random.nextInt(8)) {
      case 0 -> {
        String name = "node-" + nextNode[0]++;
        next.add(random.nextInt(next.size() + 1), NodeInfo.of(randomNode(random, name)));
      }
      case 1 -> next.remove(random.nextInt(next.size()));
      case 2 -> Collections.shuffle(next, random);
      default -> { }
    }
    return next;
  }

  private static List<Pod> incomingPods() {
    List<Pod> out = new ArrayList<>();
    // system defaults with the ReplicaSet's selector, in two namespaces
    out.add(pod("web-x").label("app", "web").label("tier", "a")
        .owner("web", "apps/v1", "ReplicaSet").obj());
    out.add(pod("web-y").namespace("other").label("app", "web")
        .owner("web", "apps/v1", "ReplicaSet").obj());
    out.add(pod("db-x").label("app", "db").owner("db", "apps/v1", "ReplicaSet").obj());
    // own soft constraints: matchLabelKeys, nodeAffinityPolicy and nodeTaintsPolicy
    out.add(pod("own").label("app", "web").label("tier", "b").nodeSelector("disk", "ssd")
        .toleration("node.kubernetes.io/unschedulable")
        .spread(1, ZONE, ANYWAY, matchLabels("app", "web"), null, HONOR, HONOR, "tier")
        .spread(2, HOSTNAME, ANYWAY, matchLabels("app", "web"), null, null, HONOR)
        .spread(3, HOSTNAME, ANYWAY, matchLabels("app", "db")).obj());
    return out;
  }

  /** PreScore on {@code feasible} then Score and NormalizeScore; the raw and normalized scores. */
  private static Map<String, List<Long>> scores(PodTopologySpread plugin, Pod pod,
      List<NodeInfo> feasible, List<NodeInfo> all) {
    CycleState state = new CycleState();
    Status status = plugin.preScore(state, pod, feasible);
    Map<String, List<Long>> out = new LinkedHashMap<>();
    if (!status.isSuccess()) {
      out.put("status", List.of((long) status.code().ordinal()));
      return out;
    }
    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo n : feasible) {
      scores.add(new NodeScore(n.nodeName(), plugin.score(state, pod, n)));
    }
    for (NodeScore s : scores) {
      out.put(s.name(), new ArrayList<>(List.of(s.score())));
    }
    plugin.scoreExtensions().orElseThrow().normalizeScore(state, pod, scores);
    for (NodeScore s : scores) {
      out.get(s.name()).add(s.score());
    }
    // a node PreScore was not given scores as well (counted directly)
    for (NodeInfo n : all) {
      if (!out.containsKey(n.nodeName())) {
        out.put("unfeasible " + n.nodeName(), List.of(plugin.score(state, pod, n)));
      }
    }
    PreScoreState s = state.readOrFail(PreScoreState.KEY, PreScoreState.class);
    for (int i = 0; i < s.constraints().size(); i++) {
      new java.util.TreeMap<>(s.domainCounts(i))
          .forEach((k, v) -> out.put("domain " + k, List.of(v)));
    }
    return out;
  }

  private static List<NodeInfo> feasible(Random random, List<NodeInfo> all) {
    List<NodeInfo> out = new ArrayList<>();
    for (NodeInfo n : all) {
      if (random.nextInt(4) != 0) {
        out.add(n);
      }
    }
    return out.isEmpty() ? List.of(all.get(0)) : out;
  }

  @Test
  void aLongLivedPluginScoresAsAFreshOneAfterEveryChange() {
    Random random = new Random(7);
    List<NodeInfo> infos = randomCluster(random, 40);
    int[] nextNode = {40};
    TestHandle longLivedHandle = handle(infos);
    PodTopologySpread longLived = systemPlugin(longLivedHandle);
    List<Pod> incoming = incomingPods();
    for (int round = 0; round < 200; round++) {
      infos = mutate(random, infos, round, nextNode);
      longLivedHandle.withNodes(infos);
      List<NodeInfo> feasible = feasible(random, infos);
      PodTopologySpread fresh = systemPlugin(handle(infos));
      for (Pod pod : incoming) {
        assertThat(scores(longLived, pod, feasible, infos))
            .as("round %d, pod %s", round, pod.getMetadata().getName())
            .isEqualTo(scores(fresh, pod, feasible, infos));
      }
    }
  }

  @Test
  void aSessionsCountsAreThoseOfCountingEachNode() {
    Random random = new Random(11);
    List<NodeInfo> infos = randomCluster(random, 30);
    int[] nextNode = {30};
    MatchCountMemo memo = new MatchCountMemo();
    List<SpreadConstraint> constraints = new ArrayList<>();
    for (Pod pod : incomingPods()) {
      constraints.addAll(new ConstraintSource(PodTopologySpread.SYSTEM_DEFAULT_CONSTRAINTS,
          java.util.Optional.of(new DefaultSelector(handle(infos).lister(
              io.fabric8.kubernetes.api.model.Service.class),
              handle(infos).lister(io.fabric8.kubernetes.api.model.ReplicationController.class),
              handle(infos).lister(ReplicaSet.class),
              handle(infos).lister(io.fabric8.kubernetes.api.model.apps.StatefulSet.class))))
          .forPod(pod, ANYWAY));
    }
    assertThat(constraints).hasSizeGreaterThan(4);
    for (int round = 0; round < 100; round++) {
      infos = mutate(random, infos, round, nextNode);
      try (MatchCountMemo.Session session = memo.open()) {
        for (SpreadConstraint c : constraints) {
          for (String namespace : NAMESPACES) {
            int[] counts = session.counts(c, namespace, infos, new TestHandle().parallelizer());
            for (int s = 0; s < infos.size(); s++) {
              assertThat(counts[s]).as("round %d, node %d", round, s)
                  .isEqualTo(c.countMatchingPods(infos.get(s), namespace));
              assertThat(session.positionOf(infos.get(s), infos)).isEqualTo(s);
            }
          }
        }
        assertThat(session.positionOf(infos.get(0).snapshot(), infos)).isEqualTo(-1);
      }
    }
  }

  @Test
  void threadsSharingOnePluginScoreAsFreshPlugins() throws Exception {
    int threads = 4;
    // each thread its own snapshots: sessions contend for the memo, and the one holding it
    // re-indexes for another node list than the last one's
    ThreadLocal<NodeInfoLister> snapshots = new ThreadLocal<>();
    TestHandle base = handle(List.of());
    PodTopologySpread shared = systemPlugin(new DelegatingHandle(base) {
      @Override
      public NodeInfoLister snapshotLister() {
        return snapshots.get();
      }
    });
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long seed = 100 + t;
        results.add(pool.submit(() -> {
          Random random = new Random(seed);
          List<NodeInfo> infos = randomCluster(random, 25);
          int[] nextNode = {25};
          List<Pod> incoming = incomingPods();
          start.await();
          int compared = 0;
          for (int round = 0; round < 60; round++) {
            infos = mutate(random, infos, round, nextNode);
            snapshots.set(new ListNodeInfoLister(infos));
            List<NodeInfo> feasible = feasible(random, infos);
            PodTopologySpread fresh = systemPlugin(handle(infos));
            for (Pod pod : incoming) {
              assertThat(scores(shared, pod, feasible, infos))
                  .as("seed %d, round %d, pod %s", seed, round, pod.getMetadata().getName())
                  .isEqualTo(scores(fresh, pod, feasible, infos));
              compared++;
            }
          }
          return compared;
        }));
      }
      start.countDown();
      for (Future<Integer> f : results) {
        assertThat(f.get(120, TimeUnit.SECONDS)).isEqualTo(60 * incomingPods().size());
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }
}
