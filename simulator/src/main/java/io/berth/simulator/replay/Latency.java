package io.berth.simulator.replay;

import java.util.List;

/**
 * Scheduling latency percentiles on the simulated clock, in milliseconds: for each pod the replay
 * bound, the simulated time from its arrival in the recording (the event that first showed it) to
 * its binding. The scheduler's own work takes no simulated time, so this is the time a pod waited:
 * in backoff, or unschedulable until a recorded event (a node added, a pod deleted) or the periodic
 * flush let it fit. Nearest-rank percentiles: p-th is element {@code ceil(p/100 × n) − 1} of the
 * sorted values. Immutable.
 */
record Latency(int count, long p50, long p90, long p99, long max) {
  static final Latency NONE = new Latency(0, 0, 0, 0, 0);

  static Latency of(List<Long> millis) {
    if (millis.isEmpty()) {
      return NONE;
    }
    long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
    return new Latency(sorted.length, rank(sorted, 50), rank(sorted, 90), rank(sorted, 99),
        sorted[sorted.length - 1]);
  }

  static long rank(long[] sorted, int p) {
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(idx, sorted.length - 1))];
  }
}
