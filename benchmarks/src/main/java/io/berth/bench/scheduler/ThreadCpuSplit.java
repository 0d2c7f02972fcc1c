package io.berth.bench.scheduler;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of the JVM's threads grouped by what they do (scheduler, informers, event recorder,
 * Vert.x event loops, embedded server, the harness's creators), between {@link #start()} and
 * {@link #report(int)}. Threads that end in between are missed (the pools involved keep their
 * threads for 60 s). The two Vert.x instances (the fabric8 client's and the embedded server's) share
 * thread names, so they are one group here; a JFR profile splits them. Confined to the harness's
 * main thread.
 */
final class ThreadCpuSplit {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> startNanos = new HashMap<>();

  private ThreadCpuSplit() {}

  static ThreadCpuSplit start() {
    ThreadCpuSplit split = new ThreadCpuSplit();
    for (long id : split.threads.getAllThreadIds()) {
      split.startNanos.put(id, Math.max(0, split.threads.getThreadCpuTime(id)));
    }
    return split;
  }

  static String group(String name) {
    if (name.equals("scheduler-loop") || name.startsWith("binding-cycle")
        || name.startsWith("scheduler-") || name.startsWith("scheduling-queue")
        || name.startsWith("permit-") || name.startsWith("explain-")) {
      return "scheduler";
    }
    if (name.startsWith("event-recorder")) {
      return "event recorder";
    }
    if (name.startsWith("berth-informer")) {
      return name.contains("-reflector") ? "informer reflectors"
          : name.contains("-processor") ? "informer processors" : "informer handlers";
    }
    if (name.startsWith("vert.x-")) {
      return "vert.x (client + server)";
    }
    if (name.startsWith("embedded-")) {
      return "embedded server threads";
    }
    if (name.startsWith("pool-")) {
      return "creators / fabric8 executors";
    }
    return "other";
  }

  /** One line per group: CPU ms per pod and share, then the total. */
  String report(int pods) {
    Map<String, Long> byGroup = new TreeMap<>();
    long total = 0;
    for (long id : threads.getAllThreadIds()) {
      long now = threads.getThreadCpuTime(id);
      ThreadInfo info = threads.getThreadInfo(id);
      if (now < 0 || info == null) {
        continue;
      }
      long used = now - startNanos.getOrDefault(id, 0L);
      byGroup.merge(group(info.getThreadName()), used, Long::sum);
      total += used;
    }
    StringBuilder out = new StringBuilder("thread CPU per pod by group (Java threads only; GC and"
        + " JIT are in the process figure):");
    for (Map.Entry<String, Long> e : byGroup.entrySet()) {
      out.append(String.format("%n  %-30s %7.3f ms  %5.1f%%", e.getKey(),
          e.getValue() / 1e6 / pods, 100.0 * e.getValue() / Math.max(1, total)));
    }
    out.append(String.format("%n  %-30s %7.3f ms", "all Java threads", total / 1e6 / pods));
    return out.toString();
  }

  /** CPU milliseconds per pod of the threads named exactly {@code name} since {@link #start}. */
  double millisPerPod(String name, int pods) {
    long used = 0;
    for (long id : threads.getAllThreadIds()) {
      long now = threads.getThreadCpuTime(id);
      ThreadInfo info = threads.getThreadInfo(id);
      if (now >= 0 && info != null && info.getThreadName().equals(name)) {
        used += now - startNanos.getOrDefault(id, 0L);
      }
    }
    return used / 1e6 / pods;
  }
}
