package io.berth.bench.scheduler;

import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * A scheduler_perf workload: how many nodes (and their zones), how many pods are scheduled first
 * and how many are measured, and how each kind of pod is shaped. Immutable.
 */
record PerfWorkload(String name, int nodes, IntFunction<String> zoneOf, int initPods,
    UnaryOperator<PodBuilder> initPod, int measuredPods, UnaryOperator<PodBuilder> measuredPod) {

  static PerfWorkload schedulingBasic(int nodes, int initPods, int measuredPods) {
    return new PerfWorkload("SchedulingBasic", nodes, i -> null, initPods, b -> b, measuredPods,
        b -> b);
  }

  /** The workload named {@code name} with the given sizes. */
  static PerfWorkload named(String name, int nodes, int initPods, int measuredPods) {
    return switch (name) {
      case "SchedulingBasic" -> schedulingBasic(nodes, initPods, measuredPods);
      default -> throw new IllegalArgumentException("unknown workload " + name
          + "; known: SchedulingBasic");
    };
  }
}
