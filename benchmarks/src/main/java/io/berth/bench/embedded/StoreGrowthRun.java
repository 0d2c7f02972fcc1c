package io.berth.bench.embedded;

import io.berth.embedded.JulBridge;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Harness main for the in-process store growth curve (see {@link StoreGrowth}): one warm-up run of 20,000 pods
 * whose figures are discarded, then {@code runs} measured runs (default 3) that each grow a fresh cluster to 50,000
 * pods. Logs Markdown tables: mean and p99 per operation for every slice of 5,000 pods (samples pooled over the
 * measured runs), for the ranges 0→10,000 and 10,000→50,000, and each run's fill time.
 *
 * <p>Run: {@code java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar io.berth.bench.embedded.StoreGrowthRun [runs]}.
 */
public final class StoreGrowthRun {

  private static final Logger LOG = LoggerFactory.getLogger(StoreGrowthRun.class);

  static final int TARGET = 50_000;
  static final int SLICE = 5_000;
  static final int WARM_UP_TARGET = 20_000;

  private StoreGrowthRun() {
  }

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    JulBridge.install();
    LOG.info("warm-up: {} pods", WARM_UP_TARGET);
    new StoreGrowth(WARM_UP_TARGET, SLICE).run();
    List<StoreGrowth.Result> results = new ArrayList<>();
    for (int r = 1; r <= runs; r++) {
      System.gc();
      StoreGrowth.Result result = new StoreGrowth(TARGET, SLICE).run();
      results.add(result);
      LOG.info("run {}: {} creates, {} gets, {} updates, {} deletes; grew to {} pods in {} s ({} creates/s incl. "
              + "the reads and updates between them); heap in use after a full GC at {} pods: {} MB", r,
          total(result.creates()), total(result.gets()), total(result.updates()), total(result.deletes()), TARGET,
          String.format("%.1f", result.fillNanos() / 1e9),
          String.format("%.0f", result.created() / (result.fillNanos() / 1e9)), TARGET,
          result.heapBytes() / 1_000_000);
    }
    report(results);
  }

  private static int total(Latencies[] slices) {
    int n = 0;
    for (Latencies l : slices) {
      n += l.count();
    }
    return n;
  }

  private static void report(List<StoreGrowth.Result> results) {
    int slices = TARGET / SLICE;
    LOG.info("");
    LOG.info("In-process latency per operation, mean / p99 (max), samples of {} measured runs pooled",
        results.size());
    LOG.info("");
    LOG.info("| pods in store | create | get | update (mutate) | delete |");
    LOG.info("|---|---:|---:|---:|---:|");
    for (int s = 0; s < slices; s++) {
      LOG.info(row(String.format("%,d–%,d", s * SLICE, (s + 1) * SLICE), results, s, s + 1));
    }
    LOG.info(row("**0 → 10,000**", results, 0, 10_000 / SLICE));
    LOG.info(row("**10,000 → 50,000**", results, 10_000 / SLICE, slices));
    LOG.info("");
    LOG.info("Per run, range 0→10,000 | 10,000→50,000, create mean / p99:");
    for (int r = 0; r < results.size(); r++) {
      StoreGrowth.Result one = results.get(r);
      LOG.info("run {}: {} | {}", r + 1,
          StoreGrowth.Result.pool(one.creates(), 0, 10_000 / SLICE).meanAndP99(),
          StoreGrowth.Result.pool(one.creates(), 10_000 / SLICE, slices).meanAndP99());
    }
  }

  private static String row(String label, List<StoreGrowth.Result> results, int from, int to) {
    return "| " + label + " | " + pooled(results, StoreGrowth.Result::creates, from, to) + " | "
        + pooled(results, StoreGrowth.Result::gets, from, to) + " | "
        + pooled(results, StoreGrowth.Result::updates, from, to) + " | "
        + pooled(results, StoreGrowth.Result::deletes, from, to) + " |";
  }

  private static String pooled(List<StoreGrowth.Result> results, Function<StoreGrowth.Result, Latencies[]> kind,
      int from, int to) {
    Latencies all = new Latencies();
    for (StoreGrowth.Result r : results) {
      all.merge(StoreGrowth.Result.pool(kind.apply(r), from, to));
    }
    return all.meanAndP99() + " (" + Latencies.format(all.maxMicros()) + ")";
  }
}
