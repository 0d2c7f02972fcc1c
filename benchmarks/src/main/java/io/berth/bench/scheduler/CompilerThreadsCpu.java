package io.berth.bench.scheduler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time of this JVM's JIT compiler threads (C1 and C2), read from Linux's {@code /proc/self/task/TID/} (the JVM
 * names them {@code C1 CompilerThreadN} and {@code C2 CompilerThreadN}, which {@code comm} cuts to 15 characters). The
 * JVM hides these threads from {@link java.lang.management.ThreadMXBean}, and their CPU per pod is the warm-up's
 * cost that load on the machine disturbs least. Threads that ended (the JVM may stop a compiler thread it no longer
 * needs) are missed. Where {@code /proc} is absent every figure is zero. Stateless; thread-safe.
 */
final class CompilerThreadsCpu {
  /** utime and stime in {@code /proc} are in clock ticks of 1/100 s on Linux (USER_HZ). */
  private static final double NANOS_PER_TICK = 1e7;

  /** The C1 and the C2 threads' CPU in nanoseconds at one instant. */
  record Sample(long c1Nanos, long c2Nanos) {
    /** The CPU used from {@code earlier} to this sample. */
    Sample minus(Sample earlier) {
      return new Sample(c1Nanos - earlier.c1Nanos, c2Nanos - earlier.c2Nanos);
    }

    /** "C1 + C2 = total ms per pod" for {@code pods} pods. */
    String perPod(int pods) {
      return String.format("C1 %.3f + C2 %.3f = %.3f ms per pod", c1Nanos / 1e6 / pods, c2Nanos / 1e6 / pods,
          (c1Nanos + c2Nanos) / 1e6 / pods);
    }
  }

  private CompilerThreadsCpu() {}

  /** The compiler threads' CPU so far. */
  static Sample now() {
    long c1 = 0;
    long c2 = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
            continue;
          }
          String stat = Files.readString(task.resolve("stat"));
          // after "(comm) ": field 3 (state) is fields[0], utime (14) fields[11], stime (15) fields[12]
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long nanos = (long) ((Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK);
          if (name.startsWith("C1")) {
            c1 += nanos;
          } else {
            c2 += nanos;
          }
        } catch (IOException | RuntimeException e) {
          // the thread ended while being read
        }
      }
    } catch (IOException | RuntimeException e) {
      return new Sample(0, 0);
    }
    return new Sample(c1, c2);
  }
}
