package io.berth.bench.embedded;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * The rows of one HTTP benchmark scenario (a label and its {@link HttpOps.Timed} samples), logged as a Markdown
 * table: calls, calls per second over the wall time, mean, p99 and maximum latency.
 *
 * <p>Not thread-safe: confined to the scenario's thread.
 */
final class ResultTable {

  private record Row(String label, HttpOps.Timed timed) {
  }

  private final List<Row> rows = new ArrayList<>();

  /** Adds a row and returns its samples, for chaining. */
  HttpOps.Timed add(String label, HttpOps.Timed timed) {
    rows.add(new Row(label, timed));
    return timed;
  }

  /**
   * One table for several runs of the same scenario (rows matched by position): latencies pooled over the runs,
   * the rate shown per run.
   */
  static void logRuns(Logger log, String title, List<ResultTable> runs) {
    log.info("");
    log.info(title + " (" + runs.size() + " runs: calls/s per run, latencies pooled)");
    log.info("");
    log.info("| measurement | calls/s | mean | p99 | max |");
    log.info("|---|---:|---:|---:|---:|");
    ResultTable first = runs.get(0);
    for (int i = 0; i < first.rows.size(); i++) {
      Latencies pooled = new Latencies();
      List<String> rates = new ArrayList<>();
      for (ResultTable run : runs) {
        Row row = run.rows.get(i);
        pooled.merge(row.timed().latencies());
        rates.add(String.format("%,.0f", row.timed().perSecond()));
      }
      Row row = first.rows.get(i);
      String bytes = row.timed().bytes() > 0 ? String.format(" (%.1f MB a list)", row.timed().bytes() / 1e6) : "";
      log.info(String.format("| %s%s | %s | %s | %s | %s |", row.label(), bytes, String.join(" / ", rates),
          Latencies.format(pooled.meanMicros()), Latencies.format(pooled.percentileMicros(99)),
          Latencies.format(pooled.maxMicros())));
    }
  }

  void log(Logger log, String title) {
    log.info("");
    log.info(title);
    log.info("");
    log.info("| measurement | calls | calls/s | mean | p99 | max |");
    log.info("|---|---:|---:|---:|---:|---:|");
    for (Row row : rows) {
      Latencies l = row.timed().latencies();
      String bytes = row.timed().bytes() > 0 ? String.format(" (%.1f MB a list)", row.timed().bytes() / 1e6) : "";
      log.info(String.format("| %s%s | %,d | %,.0f | %s | %s | %s |", row.label(), bytes, l.count(),
          row.timed().perSecond(), Latencies.format(l.meanMicros()), Latencies.format(l.percentileMicros(99)),
          Latencies.format(l.maxMicros())));
    }
  }
}
