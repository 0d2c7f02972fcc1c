package io.berth.bench.scheduler;

import io.berth.framework.FeatureGates;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpportunisticBatching off versus on, side by side in one JVM: each batching workload of
 * {@link PerfWorkload} runs with {@code OpportunisticBatching=false}, then {@code =true},
 * alternately, {@code runs} times, through {@link SchedulerThroughputRun#run}. Prints one table
 * (pods/s, latencies, batch hits) and the on/off ratio of the mean overall pods/s.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.BatchingThroughputRun
 * [nodes] [pods] [runs] [workload,...]}; defaults 5000 5000 2 and all four batching workloads
 * (BatchingWholeNode, BatchingHostPortConflict, BatchingResourceSaturation,
 * BatchingAlternatingSignatures). Single-threaded driver; the scheduler runs its own threads.
 */
public final class BatchingThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(BatchingThroughputRun.class);

  private BatchingThroughputRun() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int pods = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    int runs = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    List<String> workloads = args.length > 3 ? List.of(args[3].split(","))
        : List.of("BatchingWholeNode", "BatchingHostPortConflict", "BatchingResourceSaturation",
            "BatchingAlternatingSignatures");
    StringBuilder table = new StringBuilder("\n| workload | batching | run | pods/s (avg of 1 s"
        + " samples) | pods/s (overall) | p50 ms | p99 ms | batch hits |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    StringBuilder ratios = new StringBuilder();
    for (String name : workloads) {
      double[] overall = new double[2];
      for (int r = 0; r < runs; r++) {
        for (int on = 0; on <= 1; on++) {
          FeatureGates gates = FeatureGates.parse("OpportunisticBatching=" + (on == 1));
          // a fresh workload each time: some shapes keep state (the alternating port)
          SchedulerThroughputRun.Result res = SchedulerThroughputRun.run(
              PerfWorkload.named(name, nodes, 0, pods), gates);
          LOG.info("{} batching={} run {}: {}", name, on == 1, r + 1,
              SchedulerThroughputRun.format(res));
          overall[on] += res.overallPodsPerSecond() / runs;
          table.append(String.format("| %s | %s | %d | %.0f | %.0f | %.2f | %.2f | %d |%n", name,
              on == 1 ? "on" : "off", r + 1, res.avgPodsPerSecond(), res.overallPodsPerSecond(),
              res.p50Millis(), res.p99Millis(), res.batchHits()));
        }
      }
      ratios.append(String.format("%s: on/off overall pods/s = %.2fx (%.0f vs %.0f)%n", name,
          overall[1] / overall[0], overall[1], overall[0]));
    }
    LOG.info("{}\n{}", table, ratios);
  }
}
