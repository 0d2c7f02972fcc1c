package io.berth.bench.scheduler;

import io.berth.framework.FeatureGates;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Attempt recording for {@code /debug/explain} off versus on, side by side in one JVM: the
 * workload (SchedulingBasic by default) runs through {@link SchedulerThroughputRun#run} with
 * recording off, then on (the daemon's default bounds), alternately, {@code runs} times. Prints
 * one table and the on/off ratio of the mean pods/s of the runs after the first pair (the first
 * pair warms the JIT up).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.ExplainThroughputRun
 * [workload] [nodes] [initPods] [measuredPods] [runs]}; defaults SchedulingBasic 5000 1000 10000 3.
 * Single-threaded driver; the scheduler runs its own threads.
 */
public final class ExplainThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(ExplainThroughputRun.class);

  private ExplainThroughputRun() {}

  public static void main(String[] args) throws Exception {
    String workload = args.length > 0 ? args[0] : "SchedulingBasic";
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
    int init = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    int measured = args.length > 3 ? Integer.parseInt(args[3]) : 10000;
    int runs = args.length > 4 ? Integer.parseInt(args[4]) : 3;
    FeatureGates gates = FeatureGates.parse(System.getProperty("berth.featureGates", ""));
    StringBuilder table = new StringBuilder("\n| run | recording | pods/s (avg of 1 s samples) |"
        + " pods/s (overall) | p50 ms | p99 ms |\n|---|---|---|---|---|---|\n");
    double[] avg = new double[2];
    int counted = 0;
    for (int r = 0; r < runs; r++) {
      for (int on = 0; on <= 1; on++) {
        SchedulerThroughputRun.Result res = SchedulerThroughputRun.run(
            PerfWorkload.named(workload, nodes, init, measured), gates, on == 1);
        LOG.info("recording={} run {}: {}", on == 1, r + 1, SchedulerThroughputRun.format(res));
        table.append(String.format("| %d | %s | %.0f | %.0f | %.2f | %.2f |%n", r + 1,
            on == 1 ? "on" : "off", res.avgPodsPerSecond(), res.overallPodsPerSecond(),
            res.p50Millis(), res.p99Millis()));
        if (r > 0 || runs == 1) {
          avg[on] += res.avgPodsPerSecond();
        }
      }
      if (r > 0 || runs == 1) {
        counted++;
      }
    }
    LOG.info("{}\n{}: on/off mean pods/s (runs after the first) = {} ({} vs {})", table, workload,
        String.format("%.3f", avg[1] / avg[0]), String.format("%.0f", avg[1] / counted),
        String.format("%.0f", avg[0] / counted));
  }
}
