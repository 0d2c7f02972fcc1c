package io.berth.bench.embedded;

import io.berth.embedded.JulBridge;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Harness main for the HTTP figures, embedded API server and fabric8 mock side by side in one JVM: a warm-up of
 * both (the embedded scenario at half its sizes; discarded), then {@code embeddedRuns} (default 2) runs of
 * {@link EmbeddedHttpScenario} at full size, each on a fresh cluster, then {@link MockCrudScenario} (creates up to
 * {@code mockPods}, default 10,000, within {@code mockBudgetSeconds}, default 240). Logs the embedded server's table
 * per run and combined, the mock's table, and the create curves of both (the embedded one from its last run), per
 * 1,000 pods.
 *
 * <p>Run: {@code java -Xms4g -Xmx4g -cp benchmarks/target/benchmarks.jar io.berth.bench.embedded.ApiServerHttpRun
 * [mockPods [mockBudgetSeconds [embeddedRuns]]]}.
 */
public final class ApiServerHttpRun {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServerHttpRun.class);

  private ApiServerHttpRun() {
  }

  public static void main(String[] args) {
    int mockPods = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    long mockBudget = args.length > 1 ? Long.parseLong(args[1]) : 240;
    int embeddedRunCount = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    JulBridge.install();
    LOG.info("warm-up: embedded at half scale, mock 2,000 pods");
    new EmbeddedHttpScenario(0.5).run();
    new MockCrudScenario(2_000, 1_000, mockBudget).run();

    List<EmbeddedHttpScenario> embeddedRuns = new ArrayList<>();
    for (int r = 1; r <= embeddedRunCount; r++) {
      System.gc();
      long t0 = System.nanoTime();
      EmbeddedHttpScenario embedded = new EmbeddedHttpScenario(1);
      embedded.run();
      embeddedRuns.add(embedded);
      LOG.info("embedded scenario run {} took {} s", r, String.format("%.0f", (System.nanoTime() - t0) / 1e9));
      embedded.table().log(LOG, "Embedded API server over HTTP (fabric8 client), run " + r);
    }
    ResultTable.logRuns(LOG, "Embedded API server over HTTP (fabric8 client)",
        embeddedRuns.stream().map(EmbeddedHttpScenario::table).toList());

    System.gc();
    long t0 = System.nanoTime();
    MockCrudScenario mock = new MockCrudScenario(mockPods, 1_000, mockBudget);
    mock.run();
    LOG.info("mock scenario took {} s", String.format("%.0f", (System.nanoTime() - t0) / 1e9));
    mock.table().log(LOG, "fabric8 KubernetesMockServer, CRUD mode, over HTTP (same client calls)");

    logCurves(embeddedRuns.get(embeddedRuns.size() - 1).curve(), mock.curve());
  }

  private static void logCurves(List<HttpOps.Timed> embedded, List<HttpOps.Timed> mock) {
    LOG.info("");
    LOG.info("Pod creates over HTTP, 1 thread, per 1,000 pods: creates/s, mean / p99");
    LOG.info("");
    LOG.info("| pods in store | embedded creates/s | embedded mean / p99 | mock creates/s | mock mean / p99 |");
    LOG.info("|---|---:|---:|---:|---:|");
    int rows = Math.max(embedded.size(), mock.size());
    for (int i = 0; i < rows; i++) {
      LOG.info(String.format("| %,d–%,d | %s | %s | %s | %s |", i * 1_000, (i + 1) * 1_000,
          rate(embedded, i), latency(embedded, i), rate(mock, i), latency(mock, i)));
    }
  }

  private static String rate(List<HttpOps.Timed> curve, int i) {
    return i < curve.size() ? String.format("%,.0f", curve.get(i).perSecond()) : "–";
  }

  private static String latency(List<HttpOps.Timed> curve, int i) {
    return i < curve.size() ? curve.get(i).latencies().meanAndP99() : "–";
  }
}
