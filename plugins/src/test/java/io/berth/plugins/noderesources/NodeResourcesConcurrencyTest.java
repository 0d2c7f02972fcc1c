package io.berth.plugins.noderesources;

import static io.berth.plugins.noderesources.Fixtures.node;
import static io.berth.plugins.noderesources.Fixtures.pod;
import static io.berth.plugins.noderesources.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Filter and Score are called from many threads at once on shared NodeInfos and one CycleState
 * per pod, as the scheduler's parallel Filter/Score does: every thread must see exactly the
 * results of a sequential run (the scorers' per-thread scratch arrays included).
 */
class NodeResourcesConcurrencyTest {
  private static final int THREADS = 8;
  private static final int ROUNDS = 200;

  /** Everything one thread computes for one pod: a filter status and two scores per node. */
  record Outcome(List<Status> filters, List<Long> fitScores, List<Long> balancedScores) {}

  @Test
  void filterAndScoreGiveSequentialResultsOnEveryThread() throws Exception {
    NodeResourcesFit fit = (NodeResourcesFit) NodeResourcesFit.create(Map.of("scoringStrategy",
        Map.of("type", "MostAllocated", "resources", List.of(Map.of("name", "cpu"),
            Map.of("name", "memory"), Map.of("name", "example.com/gpu", "weight", 3)))),
        new TestHandle());
    NodeResourcesBalancedAllocation balanced = (NodeResourcesBalancedAllocation)
        NodeResourcesBalancedAllocation.create(Map.of(), new TestHandle());
    List<NodeInfo> nodes = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      String name = "node" + i;
      NodeInfo info = NodeInfo.of(node(name, res("cpu", (2 + i % 4) + "", "memory",
          (4 + i % 3) + "Gi", "pods", "" + (3 + i % 2), "example.com/gpu", "" + (i % 3))));
      for (int p = 0; p < i % 4; p++) {
        info.addPod(io.berth.framework.PodInfo.of(
            pod(res("cpu", "500m", "memory", (p + 1) + "Gi")).on(name).build()));
      }
      nodes.add(info);
    }
    List<Pod> pods = List.of(
        pod(res("cpu", "1", "memory", "1Gi")).build(),
        pod(res("cpu", "2500m", "memory", "512Mi", "example.com/gpu", "1")).build(),
        pod().bareContainer().build(),
        pod(res("memory", "5Gi")).build());
    List<CycleState> states = new ArrayList<>();
    List<Outcome> expected = new ArrayList<>();
    for (Pod pod : pods) {
      CycleState state = new CycleState();
      assertThat(fit.preFilter(state, pod, nodes).status().isSuccess()).isTrue();
      assertThat(fit.preScore(state, pod, nodes).isSuccess()).isTrue();
      Status balancedPreScore = balanced.preScore(state, pod, nodes);
      // a best-effort pod is skipped by BalancedAllocation (v1.36); Score then gives 0
      assertThat(balancedPreScore.isSuccess() || balancedPreScore.isSkip()).isTrue();
      states.add(state);
      expected.add(evaluate(fit, balanced, state, pod, nodes));
    }
    // the cases must exercise both outcomes of Filter
    assertThat(expected.stream().flatMap(o -> o.filters().stream()).map(Status::isSuccess))
        .contains(true, false);

    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int offset = t;
        Callable<Integer> work = () -> {
          start.await();
          int checked = 0;
          for (int round = 0; round < ROUNDS; round++) {
            int i = (round + offset) % pods.size();
            assertThat(evaluate(fit, balanced, states.get(i), pods.get(i), nodes))
                .isEqualTo(expected.get(i));
            checked++;
          }
          return checked;
        };
        results.add(pool.submit(work));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(ROUNDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aScoreDoesNotSeeTheScratchOfThePreviousOneOnTheSameThread() {
    // the amount arrays are reused per thread: a resource the previous pod requested (the gpu)
    // must not count for a pod that does not request it
    Map<String, Object> args = Map.of("scoringStrategy", Map.of("type", "MostAllocated",
        "resources", List.of(Map.of("name", "cpu"), Map.of("name", "memory"),
            Map.of("name", "example.com/gpu", "weight", 3))));
    NodeResourcesFit used = (NodeResourcesFit) NodeResourcesFit.create(args, new TestHandle());
    NodeInfo node = NodeInfo.of(node("n", res("cpu", "4", "memory", "8Gi", "pods", "10",
        "example.com/gpu", "4")));
    Pod withGpu = pod(res("cpu", "1", "memory", "1Gi", "example.com/gpu", "2")).build();
    Pod withoutGpu = pod(res("cpu", "1", "memory", "1Gi")).build();
    long fresh = scoreOf((NodeResourcesFit) NodeResourcesFit.create(args, new TestHandle()), withoutGpu, node);
    long gpuScore = scoreOf(used, withGpu, node);
    assertThat(scoreOf(used, withoutGpu, node)).isEqualTo(fresh).isNotEqualTo(gpuScore);
  }

  private static long scoreOf(NodeResourcesFit fit, Pod pod, NodeInfo node) {
    CycleState state = new CycleState();
    assertThat(fit.preScore(state, pod, List.of(node)).isSuccess()).isTrue();
    return fit.score(state, pod, node);
  }

  private static Outcome evaluate(NodeResourcesFit fit, NodeResourcesBalancedAllocation balanced,
      CycleState state, Pod pod, List<NodeInfo> nodes) {
    List<Status> filters = new ArrayList<>();
    List<Long> fitScores = new ArrayList<>();
    List<Long> balancedScores = new ArrayList<>();
    for (NodeInfo node : nodes) {
      filters.add(fit.filter(state, pod, node));
      fitScores.add(fit.score(state, pod, node));
      balancedScores.add(balanced.score(state, pod, node));
    }
    return new Outcome(filters, fitScores, balancedScores);
  }
}
