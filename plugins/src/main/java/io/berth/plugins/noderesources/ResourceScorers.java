package io.berth.plugins.noderesources;

import io.berth.framework.ScorePlugin;
import io.berth.plugins.noderesources.NodeResourcesFitArgs.UtilizationShapePoint;
import java.util.List;

/**
 * The per-node scoring functions of the resource-allocation strategies (upstream's
 * least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go and
 * balanced_allocation.go, v1.36). Each takes, per configured resource, what would be requested on
 * the node with the pod, what is requested on it without the pod, and the node's allocatable
 * amount; a resource with allocatable 0 is left out.
 * Stateless; the returned scorers are immutable and thread-safe.
 */
final class ResourceScorers {
  private static final long MAX = ScorePlugin.MAX_NODE_SCORE;
  private static final long MAX_UTILIZATION = 100;
  private static final long MAX_CUSTOM_PRIORITY_SCORE = 10;

  /**
   * Scores one node from the amounts requested with the pod, requested without it ("allocated")
   * and allocatable, index by index.
   */
  @FunctionalInterface
  interface ResourceScorer {
    long score(long[] requested, long[] allocated, long[] allocatable);
  }

  private ResourceScorers() {}

  /** Favors emptier nodes: weighted mean of (allocatable - requested) / allocatable. */
  static ResourceScorer leastAllocated(List<ResourceSpec> resources) {
    return weightedMean(resources, (requested, capacity) -> {
      if (capacity == 0 || requested > capacity) {
        return 0;
      }
      return (capacity - requested) * MAX / capacity;
    });
  }

  /** Favors fuller nodes: weighted mean of requested / allocatable (capped at allocatable). */
  static ResourceScorer mostAllocated(List<ResourceSpec> resources) {
    return weightedMean(resources, (requested, capacity) -> {
      if (capacity == 0) {
        return 0;
      }
      // pods without requests count default amounts, so requested may exceed capacity
      return Math.min(requested, capacity) * MAX / capacity;
    });
  }

  /**
   * Maps each resource's utilization (0..100) through the broken-linear {@code shape}, whose
   * scores 0..10 are scaled to 0..100, and returns the rounded weighted mean over the resources
   * that scored above zero.
   */
  static ResourceScorer requestedToCapacityRatio(List<ResourceSpec> resources,
      List<UtilizationShapePoint> shape) {
    long[] utilizations = new long[shape.size()];
    long[] scores = new long[shape.size()];
    for (int i = 0; i < shape.size(); i++) {
      utilizations[i] = shape.get(i).utilization();
      scores[i] = shape.get(i).score() * (MAX / MAX_CUSTOM_PRIORITY_SCORE);
    }
    return (requested, allocated, allocatable) -> {
      long nodeScore = 0;
      long weightSum = 0;
      for (int i = 0; i < requested.length; i++) {
        if (allocatable[i] == 0) {
          continue;
        }
        long utilization = requested[i] > allocatable[i] ? MAX_UTILIZATION
            : requested[i] * MAX_UTILIZATION / allocatable[i];
        long resourceScore = brokenLinear(utilizations, scores, utilization);
        if (resourceScore > 0) {
          long weight = resources.get(i).weight();
          nodeScore += resourceScore * weight;
          weightSum += weight;
        }
      }
      return weightSum == 0 ? 0 : Math.round((double) nodeScore / weightSum);
    };
  }

  /**
   * Favors nodes whose balance the pod improves (v1.36): with {@code b(x)} = (1 - standard
   * deviation of the x/allocatable fractions, each capped at 1) * 100, truncated, the score is
   * {@code 50 + (50 + b(requested) - b(allocated)) / 2} in integer arithmetic, so 75 when the pod
   * leaves the balance as it was, towards 100 when it improves it and towards 50 when it worsens
   * it. For two resources the deviation is |f1 - f2| / 2; for one it is 0.
   */
  static ResourceScorer balanced() {
    return (requested, allocated, allocatable) -> {
      long withPod = balance(requested, allocatable);
      long withoutPod = balance(allocated, allocatable);
      return MAX / 2 + (MAX / 2 + withPod - withoutPod) / 2;
    };
  }

  /** (1 - standard deviation of the capped amount/allocatable fractions) * 100, truncated. */
  static long balance(long[] amounts, long[] allocatable) {
    // the first two fractions in locals: the usual cpu+memory case allocates nothing per node
    double first = 0;
    double second = 0;
    double[] fractions = null;
    int n = 0;
    double total = 0;
    for (int i = 0; i < amounts.length; i++) {
      if (allocatable[i] == 0) {
        continue;
      }
      double fraction = Math.min(1.0, (double) amounts[i] / allocatable[i]);
      total += fraction;
      if (n == 0) {
        first = fraction;
      } else if (n == 1) {
        second = fraction;
      } else {
        if (fractions == null) {
          fractions = new double[amounts.length];
          fractions[0] = first;
          fractions[1] = second;
        }
        fractions[n] = fraction;
      }
      n++;
    }
    double std = 0;
    if (n == 2) {
      std = Math.abs((first - second) / 2);
    } else if (n > 2) {
      double mean = total / n;
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += (fractions[i] - mean) * (fractions[i] - mean);
      }
      std = Math.sqrt(sum / n);
    }
    return (long) ((1 - std) * MAX);
  }


  /**
   * The piecewise-linear function through the shape points, flat before the first and after the
   * last point, in integer arithmetic as upstream's {@code BuildBrokenLinearFunction}.
   */
  static long brokenLinear(long[] utilizations, long[] scores, long p) {
    for (int i = 0; i < utilizations.length; i++) {
      if (p <= utilizations[i]) {
        if (i == 0) {
          return scores[0];
        }
        return scores[i - 1] + (scores[i] - scores[i - 1]) * (p - utilizations[i - 1])
            / (utilizations[i] - utilizations[i - 1]);
      }
    }
    return scores[scores.length - 1];
  }

  private interface PerResource {
    long score(long requested, long capacity);
  }

  private static ResourceScorer weightedMean(List<ResourceSpec> resources,
      PerResource perResource) {
    long[] weights = new long[resources.size()];
    for (int i = 0; i < weights.length; i++) {
      weights[i] = resources.get(i).weight();
    }
    return (requested, allocated, allocatable) -> {
      long nodeScore = 0;
      long weightSum = 0;
      for (int i = 0; i < requested.length; i++) {
        if (allocatable[i] == 0) {
          continue;
        }
        long weight = weights[i];
        nodeScore += perResource.score(requested[i], allocatable[i]) * weight;
        weightSum += weight;
      }
      return weightSum == 0 ? 0 : nodeScore / weightSum;
    };
  }
}
