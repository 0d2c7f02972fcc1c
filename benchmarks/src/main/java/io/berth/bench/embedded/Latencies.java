package io.berth.bench.embedded;

import java.util.Arrays;

/**
 * Latency samples of one kind of operation, in nanoseconds, with the summary figures the harnesses report (count,
 * mean, median, 99th percentile, maximum). Growable; {@link #merge} pools the samples of several threads or runs.
 *
 * <p>Not thread-safe: confined to the thread that records into it; hand it over (e.g. through {@code Future.get})
 * before merging.
 */
final class Latencies {

  private long[] nanos = new long[1024];
  private int count;

  /** Records one sample. */
  void add(long sampleNanos) {
    if (count == nanos.length) {
      nanos = Arrays.copyOf(nanos, count * 2);
    }
    nanos[count++] = sampleNanos;
  }

  /** Adds every sample of {@code other} to this one. */
  Latencies merge(Latencies other) {
    for (int i = 0; i < other.count; i++) {
      add(other.nanos[i]);
    }
    return this;
  }

  int count() {
    return count;
  }

  double meanMicros() {
    if (count == 0) {
      return Double.NaN;
    }
    long sum = 0;
    for (int i = 0; i < count; i++) {
      sum += nanos[i];
    }
    return sum / 1e3 / count;
  }

  /** The {@code p}-th percentile (0 to 100, nearest rank) in microseconds. */
  double percentileMicros(double p) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(nanos, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))] / 1e3;
  }

  double maxMicros() {
    return percentileMicros(100);
  }

  /** "mean / p99" in the unit that reads best: µs below 10 ms, else ms. */
  String meanAndP99() {
    if (count == 0) {
      return "–";
    }
    return format(meanMicros()) + " / " + format(percentileMicros(99));
  }

  static String format(double micros) {
    if (micros < 10_000) {
      return String.format("%.1f µs", micros);
    }
    return String.format("%.1f ms", micros / 1e3);
  }
}
