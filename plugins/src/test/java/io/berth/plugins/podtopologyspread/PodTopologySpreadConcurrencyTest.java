package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.HOSTNAME;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.ZONE;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.find;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.listPlugin;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Parallelizer;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Filter and Score run on many threads against state written once per cycle; AddPod/RemovePod
 * write the PreFilter state under its lock; PreFilter and PreScore count on the parallelizer.
 */
class PodTopologySpreadConcurrencyTest {
  private static final int THREADS = 4;

  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void shutdown() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** 60 nodes over 3 zones, with a skewed number of matching and non-matching pods. */
  static List<NodeInfo> cluster() {
    List<Node> nodes = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      String name = "node-" + i;
      nodes.add(node(name).label(HOSTNAME, name).label(ZONE, "zone" + (i % 3)).obj());
      for (int j = 0; j < i % 7; j++) {
        pods.add(pod(name + "-foo-" + j).node(name).label("foo", "").obj());
      }
      pods.add(pod(name + "-other").node(name).label("bar", "").obj());
    }
    return nodeInfos(nodes, pods);
  }

  static Pod incoming() {
    return pod("p").label("foo", "").spread(3, ZONE, DNS, fooSelector())
        .spread(2, HOSTNAME, ANYWAY, fooSelector()).spread(4, ZONE, ANYWAY, fooSelector()).obj();
  }

  /** A parallelizer on the test's thread pool: one task per piece, joined before returning. */
  Parallelizer threaded() {
    return new Parallelizer() {
      @Override
      public int parallelism() {
        return THREADS;
      }

      @Override
      public void until(int pieces, IntConsumer work, BooleanSupplier stop) {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < pieces; i++) {
          int piece = i;
          futures.add(pool.submit(() -> {
            if (!stop.getAsBoolean()) {
              work.accept(piece);
            }
          }));
        }
        for (Future<?> f : futures) {
          try {
            f.get();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
          }
        }
      }
    };
  }

  static Map<String, Long> scoreAll(PodTopologySpread plugin, CycleState state, Pod pod,
      List<NodeInfo> infos) {
    List<NodeScore> scores = new ArrayList<>();
    for (NodeInfo n : infos) {
      scores.add(new NodeScore(n.nodeName(), plugin.score(state, pod, n)));
    }
    plugin.scoreExtensions().orElseThrow().normalizeScore(state, pod, scores);
    Map<String, Long> out = new LinkedHashMap<>();
    scores.forEach(s -> out.put(s.name(), s.score()));
    return out;
  }

  @Test
  void parallelPreFilterAndPreScoreCountLikeTheSequentialOnes() {
    List<NodeInfo> infos = cluster();
    Pod pod = incoming();
    TestHandle sequentialHandle = new TestHandle().withNodes(infos);
    PodTopologySpread sequential = listPlugin(sequentialHandle);
    PodTopologySpread parallel = listPlugin(new DelegatingHandle(sequentialHandle) {
      @Override
      public Parallelizer parallelizer() {
        return threaded();
      }
    });

    CycleState seqState = new CycleState();
    sequential.preFilter(seqState, pod, infos);
    sequential.preScore(seqState, pod, infos);
    for (int round = 0; round < 20; round++) {
      CycleState parState = new CycleState();
      assertThat(parallel.preFilter(parState, pod, infos).status()).isEqualTo(Status.SUCCESS);
      assertThat(parState.readOrFail(PreFilterState.KEY, PreFilterState.class).matchNums(0))
          .isEqualTo(seqState.readOrFail(PreFilterState.KEY, PreFilterState.class)
              .matchNums(0));
      assertThat(parallel.preScore(parState, pod, infos)).isEqualTo(Status.SUCCESS);
      PreScoreState par = parState.readOrFail(PreScoreState.KEY, PreScoreState.class);
      PreScoreState seq = seqState.readOrFail(PreScoreState.KEY, PreScoreState.class);
      assertThat(par.domainCounts(1)).isEqualTo(seq.domainCounts(1));
      assertThat(scoreAll(parallel, parState, pod, infos))
          .isEqualTo(scoreAll(sequential, seqState, pod, infos));
    }
  }

  @Test
  void concurrentScoresAgreeWithSequentialScores() throws Exception {
    List<NodeInfo> infos = cluster();
    Pod pod = incoming();
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    CycleState state = new CycleState();
    plugin.preScore(state, pod, infos);
    Map<String, Long> expected = new LinkedHashMap<>();
    for (NodeInfo n : infos) {
      expected.put(n.nodeName(), plugin.score(state, pod, n));
    }
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Map<String, Long>>> results = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      results.add(pool.submit(() -> {
        start.await();
        Map<String, Long> got = new LinkedHashMap<>();
        for (int round = 0; round < 50; round++) {
          for (NodeInfo n : infos) {
            got.put(n.nodeName(), plugin.score(state, pod, n));
          }
        }
        return got;
      }));
    }
    start.countDown();
    for (Future<Map<String, Long>> f : results) {
      assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
    }
  }

  @Test
  void filtersRunWhileAddPodAndRemovePodUpdateTheSameState() throws Exception {
    List<NodeInfo> infos = cluster();
    Pod pod = incoming();
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    CycleState state = new CycleState();
    plugin.preFilter(state, pod, infos);
    PreFilterState before = (PreFilterState) state
        .readOrFail(PreFilterState.KEY, PreFilterState.class).copy();
    PreFilterExtensions ext = plugin.preFilterExtensions().orElseThrow();
    NodeInfo target = find(infos, "node-0");
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger unexpected = new AtomicInteger();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int writer = t;
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 500; i++) {
          PodInfo nominated = PodInfo.of(pod("nominated-" + writer + "-" + i).node("node-0")
              .label("foo", "").obj());
          ext.addPod(state, pod, nominated, target);
          ext.removePod(state, pod, nominated, target);
        }
        return null;
      }));
    }
    for (int t = 0; t < 2; t++) {
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 100; i++) {
          for (NodeInfo n : infos) {
            Code code = plugin.filter(state, pod, n).code();
            if (code != Code.SUCCESS && code != Code.UNSCHEDULABLE) {
              unexpected.incrementAndGet();
            }
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    assertThat(unexpected).hasValue(0);
    PreFilterState after = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
    assertThat(after.matchNums(0)).isEqualTo(before.matchNums(0));
    assertThat(after.criticalPaths(0).minMatchNum())
        .isEqualTo(before.criticalPaths(0).minMatchNum());
    for (NodeInfo n : infos) {
      assertThat(plugin.filter(state, pod, n)).isEqualTo(before.filter(pod, n.getNode()));
    }
  }
}
