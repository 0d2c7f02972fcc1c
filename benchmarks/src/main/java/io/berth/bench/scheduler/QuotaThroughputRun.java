package io.berth.bench.scheduler;

import io.berth.framework.FeatureGates;
import io.berth.plugins.capacityscheduling.ElasticQuota;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CapacityScheduling's cost, side by side in one JVM: SchedulingBasic with its pods spread over {@code quotas}
 * namespaces, once without quotas and once with CapacityScheduling enabled (in place of DefaultPreemption) and an
 * ElasticQuota per namespace, alternately, {@code runs} times, through {@link SchedulerThroughputRun#run}. Each
 * quota's min is an equal share of the cluster (cpu and memory) and its max twice that, so every pod passes the
 * quota check: the figures are the price of the check, the Reserve charge and the shared book. Prints one table and
 * the with/without ratio of the mean pods/s.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.berth.bench.scheduler.QuotaThroughputRun [nodes]
 * [initPods] [measuredPods] [runs] [quotas]}; defaults 5000 1000 10000 2 20. Single-threaded driver; the scheduler
 * runs its own threads.
 */
public final class QuotaThroughputRun {
  private static final Logger LOG = LoggerFactory.getLogger(QuotaThroughputRun.class);

  private QuotaThroughputRun() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int init = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int measured = args.length > 2 ? Integer.parseInt(args[2]) : 10000;
    int runs = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    int quotas = args.length > 4 ? Integer.parseInt(args[4]) : 20;
    long cpuShare = nodes * 4000L / quotas;
    long memoryShare = nodes * (32L << 30) / quotas;
    List<ElasticQuota> eqs = new ArrayList<>();
    SchedulerThroughputRun.QuotaSetup without = new SchedulerThroughputRun.QuotaSetup(quotas, List.of());
    for (int i = 0; i < quotas; i++) {
      String ns = without.namespace(i);
      eqs.add(new ElasticQuota(ns, "quota", Map.of("cpu", cpuShare, "memory", memoryShare),
          Map.of("cpu", 2 * cpuShare, "memory", 2 * memoryShare), false, Map.of()));
    }
    SchedulerThroughputRun.QuotaSetup with = new SchedulerThroughputRun.QuotaSetup(quotas, eqs);
    FeatureGates gates = FeatureGates.parse(System.getProperty("berth.featureGates", ""));
    StringBuilder table = new StringBuilder("\n| run | quotas | nodes | pods (init+measured) | pods/s (avg of 1 s"
        + " samples) | pods/s (overall) | p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|\n");
    double[] avg = new double[2];
    for (int r = 0; r < runs; r++) {
      for (int on = 0; on <= 1; on++) {
        SchedulerThroughputRun.Result res = SchedulerThroughputRun.run(PerfWorkload.named("SchedulingBasic",
            nodes, init, measured), gates, on == 1 ? with : without);
        LOG.info("quotas={} run {}: {}", on == 1 ? quotas : 0, r + 1, SchedulerThroughputRun.format(res));
        avg[on] += res.avgPodsPerSecond() / runs;
        table.append(String.format("| %d | %s | %d | %d+%d | %.0f | %.0f | %.2f | %.2f |%n", r + 1,
            on == 1 ? quotas + " (CapacityScheduling)" : "none", nodes, init, measured, res.avgPodsPerSecond(),
            res.overallPodsPerSecond(), res.p50Millis(), res.p99Millis()));
      }
    }
    LOG.info("{}\nwith/without quotas, mean pods/s (avg of 1 s samples): {} ({} vs {})", table,
        String.format("%.2f", avg[1] / avg[0]), String.format("%.0f", avg[1]), String.format("%.0f", avg[0]));
  }
}
