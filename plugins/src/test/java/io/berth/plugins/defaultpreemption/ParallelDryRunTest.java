package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.VERY_HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pdb;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.topologyNodes;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.runtime.DefaultParallelizer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The dry run evaluates candidate nodes on the parallelizer's threads, each on its own copies,
 * sharing only the lock-free candidate lists and the status map. This checks that many threads
 * find exactly the candidates (victims and PDB violations included), the node statuses and the
 * chosen node that a sequential run finds, over randomly generated clusters.
 */
class ParallelDryRunTest {
  private static final int NODES = 60;
  private static final ThreadPool POOL = new ThreadPool(8);
  private static final DefaultParallelizer DEFAULT = new DefaultParallelizer(16);

  @AfterAll
  static void stopThreads() {
    POOL.close();
    DEFAULT.close();
  }

  @Test
  void parallelCandidatesEqualSequentialOnes() {
    for (int seed = 1; seed <= 8; seed++) {
      Random random = new Random(seed);
      List<String> names = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        names.add(String.format("node%02d", i));
      }
      List<Pod> pods = new ArrayList<>();
      int startTime = 0;
      for (String node : names) {
        int count = random.nextInt(4);
        for (int j = 0; j < count; j++) {
          PreemptionFixtures.TestPod p = pod(node + "-p" + j).node(node)
              .priority(random.nextInt(5) * 100 - 100)
              .req(Map.of("cpu", (100 + 100 * random.nextInt(3)) + "m", "memory", "100"))
              .startTime(++startTime); // distinct start times: a unique best candidate
          if (random.nextBoolean()) {
            p.label("app", "guarded");
          }
          pods.add(p.obj());
        }
      }
      List<NodeInfo> nodes = nodeInfos(topologyNodes(names.toArray(String[]::new)), pods);
      List<PodDisruptionBudget> pdbs = List.of(pdb(null, "app", "guarded", random.nextInt(6)));
      Pod preemptor = pod("preemptor").priority(random.nextInt(4) * 100)
          .req(Map.of("cpu", "400m", "memory", "100")).obj();

      Outcome sequential = run(new PreemptionRuntime.SequentialParallelizer(), nodes, pdbs,
          preemptor, seed);
      assertThat(sequential.candidates()).as("seed %d has candidates", seed).isNotEmpty();
      for (Parallelizer p : List.of(POOL, DEFAULT)) {
        for (int round = 0; round < 5; round++) {
          assertThat(run(p, nodes, pdbs, preemptor, seed)).as("seed %d", seed)
              .isEqualTo(sequential);
        }
      }
    }
  }

  record Outcome(List<String> candidates, Map<String, String> statuses, Optional<String> chosen) {}

  private static Outcome run(Parallelizer parallelizer, List<NodeInfo> nodes,
      List<PodDisruptionBudget> pdbs, Pod preemptor, int offset) {
    // percentage 100: every node is evaluated, so the outcome does not depend on timing
    PreemptionRuntime rt = PreemptionRuntime.builder().fit().nodes(nodes).parallelizer(parallelizer)
        .args(Map.of("minCandidateNodesPercentage", 100)).build();
    DryRunPreemption.Result r = rt.plugin.dryRunPreemption(rt.preFiltered(preemptor), preemptor,
        nodes, pdbs, offset, rt.plugin.calculateNumCandidates(nodes.size()));
    Map<String, String> statuses = new java.util.TreeMap<>();
    r.nodeStatuses().forEach((node, s) -> statuses.put(node, s.toString()));
    return new Outcome(DryRunPreemptionTest.render(r.candidates()), statuses,
        rt.plugin.selectCandidate(r.candidates()).map(Candidate::nodeName));
  }

  @Test
  void earlyStopStillYieldsANonViolatingCandidateUnderParallelism() {
    List<String> names = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      String node = String.format("node%02d", i);
      names.add(node);
      PreemptionFixtures.TestPod p = pod(node + "-v").node(node).priority(0)
          .req(Map.of("cpu", "300m", "memory", "100"));
      if (i % 3 != 0) {
        p.label("app", "guarded");
      }
      pods.add(p.obj());
    }
    List<NodeInfo> nodes = nodeInfos(topologyNodes(names.toArray(String[]::new)), pods);
    Pod preemptor = pod("preemptor").priority(VERY_HIGH)
        .req(Map.of("cpu", "400m", "memory", "100")).obj();
    for (int round = 0; round < 20; round++) {
      PreemptionRuntime rt = PreemptionRuntime.builder().fit().nodes(nodes).parallelizer(POOL)
          .args(Map.of("minCandidateNodesPercentage", 10, "minCandidateNodesAbsolute", 3))
          .build();
      DryRunPreemption.Result r = rt.plugin.dryRunPreemption(rt.preFiltered(preemptor),
          preemptor, nodes, List.of(pdb(null, "app", "guarded", 0)), round, 6);
      long clean = r.candidates().stream().filter(c -> c.numPdbViolations() == 0).count();
      assertThat(clean).isBetween(1L, 6L);
      assertThat(r.candidates().size() - clean).isBetween(0L, 6L);
      // non-violating candidates come first
      assertThat(r.candidates().subList(0, (int) clean))
          .allMatch(c -> c.numPdbViolations() == 0);
    }
  }

  /** A fixed pool where every worker claims single pieces from a shared counter. */
  static final class ThreadPool implements Parallelizer, AutoCloseable {
    private final int parallelism;
    // thread-safe executor; shut down by close()
    private final ExecutorService pool;

    ThreadPool(int parallelism) {
      this.parallelism = parallelism;
      this.pool = Executors.newFixedThreadPool(parallelism);
    }

    @Override
    public int parallelism() {
      return parallelism;
    }

    @Override
    public void until(int pieces, IntConsumer work, BooleanSupplier stop) {
      AtomicInteger next = new AtomicInteger();
      List<Future<?>> workers = new ArrayList<>();
      for (int w = 0; w < parallelism; w++) {
        workers.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < pieces && !stop.getAsBoolean();
              i = next.getAndIncrement()) {
            work.accept(i);
          }
        }));
      }
      for (Future<?> f : workers) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }

    @Override
    public void close() {
      pool.shutdownNow();
    }
  }
}
