package io.berth.bench.embedded;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * CPU time of the JVM's threads by name, to split a run's CPU between the embedded API server (its threads are
 * named {@code embedded-...}: the transport's event loops, the simulated kubelet, the garbage collector, the watch
 * timer) and everything else in the same JVM (clients, watchers, harness). A snapshot holds each live thread's CPU
 * time; threads that end between two snapshots are not counted (take the process CPU for totals). Immutable;
 * thread-safe.
 */
final class ThreadCpu {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Whether a thread belongs to the embedded API server. */
  static final Predicate<String> SERVER = name -> name.startsWith("embedded-");

  private final Map<Long, Long> cpuById;
  private final Map<Long, String> nameById;

  private ThreadCpu(Map<Long, Long> cpuById, Map<Long, String> nameById) {
    this.cpuById = cpuById;
    this.nameById = nameById;
  }

  /** The CPU time of every live thread now. */
  static ThreadCpu snapshot() {
    Map<Long, Long> cpu = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long t = THREADS.getThreadCpuTime(info.getThreadId());
      if (t >= 0) {
        cpu.put(info.getThreadId(), t);
        names.put(info.getThreadId(), info.getThreadName());
      }
    }
    return new ThreadCpu(cpu, names);
  }

  /**
   * CPU nanoseconds used from {@code before} to this snapshot, by thread name with its numbers replaced by
   * {@code N} (all {@code vert.x-eventloop-thread-N} of the clients together), largest first.
   */
  java.util.List<Map.Entry<String, Long>> byNameSince(ThreadCpu before) {
    Map<String, Long> sums = new HashMap<>();
    for (Map.Entry<Long, Long> e : cpuById.entrySet()) {
      String name = nameById.get(e.getKey()).replaceAll("[0-9]+", "N");
      sums.merge(name, e.getValue() - before.cpuById.getOrDefault(e.getKey(), 0L), Long::sum);
    }
    return sums.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).toList();
  }

  /** CPU nanoseconds the threads named as {@code which} selects used from {@code before} to this snapshot. */
  long nanosSince(ThreadCpu before, Predicate<String> which) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : cpuById.entrySet()) {
      String name = nameById.get(e.getKey());
      if (which.test(name)) {
        sum += e.getValue() - before.cpuById.getOrDefault(e.getKey(), 0L);
      }
    }
    return sum;
  }
}
