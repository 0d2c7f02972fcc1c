package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.exists;
import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.labels;
import static io.berth.plugins.interpodaffinity.Fixtures.node;
import static io.berth.plugins.interpodaffinity.Fixtures.nodeInfos;
import static io.berth.plugins.interpodaffinity.Fixtures.plugin;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static io.berth.plugins.interpodaffinity.Fixtures.weighted;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Thread safety: PreFilter and PreScore spread over a real thread pool must compute what a
 * sequential run computes, and Filter/Score called from many threads on one CycleState must agree
 * with single-threaded calls.
 */
class InterPodAffinityConcurrencyTest {
  private static final int NODES = 150;
  private static final String[] APPS = {"web", "db", "cache", "queue"};

  private final ThreadPoolParallelizer pool = new ThreadPoolParallelizer(4);
  private final ExecutorService callers = Executors.newFixedThreadPool(8);

  @AfterEach
  void stop() {
    pool.close();
    callers.shutdownNow();
  }

  /** A seeded cluster: nodes across zones/regions, pods with mixed labels and affinities. */
  static List<NodeInfo> cluster(long seed) {
    Random random = new Random(seed);
    List<Node> nodes = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String name = "n" + i;
      nodes.add(node(name, labels("zone", "z" + random.nextInt(12),
          "region", "r" + random.nextInt(3), "hostname", name)));
      int count = random.nextInt(4);
      for (int p = 0; p < count; p++) {
        String app = APPS[random.nextInt(APPS.length)];
        Fixtures.PodMaker maker = pod().node(name).label("app", app);
        switch (random.nextInt(5)) {
          case 0 -> maker.antiAffinity(term("hostname", in("app", APPS[random.nextInt(4)])));
          case 1 -> maker.affinity(term("region", in("app", app)));
          case 2 -> maker.preferredAffinity(weighted(1 + random.nextInt(9),
              term("zone", in("app", APPS[random.nextInt(4)]))));
          case 3 -> maker.preferredAntiAffinity(weighted(1 + random.nextInt(9),
              term("hostname", exists("app"))));
          default -> { }
        }
        pods.add(maker.obj());
      }
    }
    return nodeInfos(nodes, pods);
  }

  static Pod incoming() {
    return pod().label("app", "web")
        .affinity(term("region", in("app", "db")))
        .antiAffinity(term("hostname", in("app", "queue")))
        .preferredAffinity(weighted(4, term("zone", in("app", "cache"))))
        .preferredAntiAffinity(weighted(3, term("hostname", in("app", "web"))))
        .obj();
  }

  private static final Parallelizer SEQUENTIAL = new TestHandle().parallelizer();

  @Test
  void parallelPreFilterCountsEqualSequentialCounts() {
    for (long seed = 1; seed <= 3; seed++) {
      List<NodeInfo> infos = cluster(seed);
      Pod pod = incoming();
      PreFilterState parallel = preFilterState(plugin(infos, pool), pod, infos);
      PreFilterState sequential = preFilterState(plugin(infos, SEQUENTIAL), pod, infos);

      assertThat(parallel.existingAntiAffinityCounts.isEmpty()).isFalse();
      assertThat(parallel.affinityCounts.isEmpty()).isFalse();
      assertThat(parallel.antiAffinityCounts.isEmpty()).isFalse();
      assertThat(parallel.existingAntiAffinityCounts)
          .isEqualTo(sequential.existingAntiAffinityCounts);
      assertThat(parallel.affinityCounts).isEqualTo(sequential.affinityCounts);
      assertThat(parallel.antiAffinityCounts).isEqualTo(sequential.antiAffinityCounts);
    }
  }

  @Test
  void parallelPreScoreGivesSequentialScores() {
    for (long seed = 11; seed <= 13; seed++) {
      List<NodeInfo> infos = cluster(seed);
      Pod pod = incoming();
      List<Long> parallel = rawScores(plugin(infos, pool), pod, infos);
      List<Long> sequential = rawScores(plugin(infos, SEQUENTIAL), pod, infos);

      assertThat(parallel).isEqualTo(sequential);
      assertThat(parallel.stream().distinct().count()).isGreaterThan(1);
    }
  }

  @Test
  void filterAndScoreFromManyThreadsAgreeWithSingleThreadedCalls() throws Exception {
    List<NodeInfo> infos = cluster(42);
    Pod pod = incoming();
    InterPodAffinity plugin = plugin(infos, pool);
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, infos).status().isSuccess()).isTrue();
    assertThat(plugin.preScore(state, pod, infos).isSuccess()).isTrue();
    List<Status> expectedFilter = infos.stream().map(n -> plugin.filter(state, pod, n)).toList();
    List<Long> expectedScore = infos.stream().map(n -> plugin.score(state, pod, n)).toList();
    assertThat(expectedFilter).contains(Status.SUCCESS).anyMatch(s -> !s.isSuccess());

    List<Callable<Boolean>> tasks = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int offset = t * 37;
      tasks.add(() -> {
        for (int round = 0; round < 5; round++) {
          for (int k = 0; k < infos.size(); k++) {
            int i = (k + offset) % infos.size();
            if (!plugin.filter(state, pod, infos.get(i)).equals(expectedFilter.get(i))
                || plugin.score(state, pod, infos.get(i)) != expectedScore.get(i)) {
              return false;
            }
          }
        }
        return true;
      });
    }
    for (Future<Boolean> f : callers.invokeAll(tasks)) {
      assertThat(f.get()).isTrue();
    }
  }

  private static PreFilterState preFilterState(InterPodAffinity plugin, Pod pod,
      List<NodeInfo> infos) {
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, infos).status().isSuccess()).isTrue();
    return state.readOrFail(PreFilterState.KEY, PreFilterState.class);
  }

  private static List<Long> rawScores(InterPodAffinity plugin, Pod pod, List<NodeInfo> infos) {
    CycleState state = new CycleState();
    assertThat(plugin.preScore(state, pod, infos).isSuccess()).isTrue();
    return infos.stream().map(n -> plugin.score(state, pod, n)).toList();
  }
}
