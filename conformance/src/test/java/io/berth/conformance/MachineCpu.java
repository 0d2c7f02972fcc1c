package io.berth.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's CPU time so far, from the {@code cpu} line of {@code /proc/stat}: busy seconds (user, nice,
 * system, irq, softirq, steal) and all seconds (busy plus idle and iowait), summed over every core, and the number
 * of cores ({@code cpuN} lines). Two readings subtracted give one window's share. An immutable value; reading it is
 * safe from any thread.
 */
record MachineCpu(double busySeconds, double totalSeconds, int cores) {

  /** USER_HZ, the unit of /proc/stat, is 100 on every Linux the project runs on. */
  private static final double TICKS_PER_SECOND = 100.0;

  /** Reads {@code /proc/stat} now. */
  static MachineCpu read() {
    try {
      return parse(Files.readString(Path.of("/proc/stat")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses {@code /proc/stat}'s text; throws when it has no aggregate {@code cpu} line. */
  static MachineCpu parse(String stat) {
    long busy = -1;
    long idle = 0;
    int cores = 0;
    for (String line : stat.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f[0].equals("cpu")) {
        // user nice system idle iowait irq softirq steal (guest time is already inside user)
        busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
            + Long.parseLong(f[7]) + (f.length > 8 ? Long.parseLong(f[8]) : 0);
        idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      } else if (f[0].matches("cpu[0-9]+")) {
        cores++;
      }
    }
    if (busy < 0) {
      throw new IllegalArgumentException("/proc/stat has no aggregate 'cpu' line");
    }
    return new MachineCpu(busy / TICKS_PER_SECOND, (busy + idle) / TICKS_PER_SECOND, cores);
  }

  /** This reading less an earlier one: the CPU time of the window between them. */
  MachineCpu minus(MachineCpu earlier) {
    return new MachineCpu(busySeconds - earlier.busySeconds, totalSeconds - earlier.totalSeconds, cores);
  }
}
