package io.berth.bench.scheduler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of every thread of this JVM, Java and VM threads alike (GC, JIT compilers, VM thread), grouped by what
 * they do, read from Linux's {@code /proc/self/task/TID/} ({@code comm} is the thread name cut to 15 characters).
 * {@link java.lang.management.ThreadMXBean} hides the VM's own threads, and in a cold run the GC and JIT threads
 * compete with the scheduling loop for the same cores. Threads that ended between two samples are missed. Where
 * {@code /proc} is absent a sample is empty. Stateless; thread-safe.
 */
final class ProcThreadsCpu {
  /** utime and stime in {@code /proc} are in clock ticks of 1/100 s on Linux (USER_HZ). */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private ProcThreadsCpu() {}

  /** CPU nanoseconds per group at one instant; immutable. */
  record Sample(Map<String, Long> nanosByGroup) {
    /** The CPU each group used from {@code earlier} to this sample. */
    Sample minus(Sample earlier) {
      Map<String, Long> out = new TreeMap<>(nanosByGroup);
      earlier.nanosByGroup.forEach((g, n) -> out.merge(g, -n, Long::sum));
      return new Sample(out);
    }

    /** "group ms, ..." per pod, groups in name order, then the sum. */
    String perPod(int pods) {
      StringBuilder b = new StringBuilder();
      long sum = 0;
      for (Map.Entry<String, Long> e : nanosByGroup.entrySet()) {
        b.append(String.format(Locale.ROOT, "%s %.3f, ", e.getKey(), e.getValue() / 1e6 / pods));
        sum += e.getValue();
      }
      return b.append(String.format(Locale.ROOT, "all %.3f ms per pod", sum / 1e6 / pods)).toString();
    }
  }

  /** What a thread named {@code comm} (as {@code /proc} cuts it) does. */
  static String group(String comm) {
    if (comm.equals("scheduler-loop")) {
      return "loop";
    }
    if (comm.startsWith("scheduler-para")) {
      return "parallelizer";
    }
    if (comm.startsWith("binding-cycle")) {
      return "binding";
    }
    if (comm.startsWith("C1 CompilerThre")) {
      return "C1";
    }
    if (comm.startsWith("C2 CompilerThre")) {
      return "C2";
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("VM Thread")) {
      return "GC+VM";
    }
    if (comm.equals("main")) {
      return "main";
    }
    return "other";
  }

  /** Every thread's CPU so far, summed per group. */
  static Sample now() {
    Map<String, Long> byGroup = new TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          String stat = Files.readString(task.resolve("stat"));
          // after "(comm) ": field 3 (state) is fields[0], utime (14) fields[11], stime (15) fields[12]
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
          byGroup.merge(group(name), ticks * NANOS_PER_TICK, Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended while being read
        }
      }
    } catch (IOException | RuntimeException e) {
      return new Sample(Map.of());
    }
    return new Sample(byGroup);
  }
}
