package io.berth.plugins.defaultpreemption;

import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Instant;
import java.time.DateTimeException;
import java.util.Comparator;
import java.util.List;

/**
 * How preemption ranks pods, as upstream's {@code MoreImportantPod} and {@code GetPodStartTime}:
 * a higher priority is more important, and between equal priorities the pod that started earlier
 * is. A pod without a (parsable) {@code status.startTime} counts as starting now, by the injected
 * clock. Immutable and thread-safe.
 */
final class VictimOrdering {
  private final Clock clock;

  VictimOrdering(Clock clock) {
    this.clock = clock;
  }

  /** Most important first. */
  Comparator<Pod> mostImportantFirst() {
    return Comparator.comparingInt(PrioritySort::podPriority).reversed()
        .thenComparing(this::startTime);
  }

  /** The pod's start time, or now when it has not started (assumed or just bound pods). */
  Instant startTime(Pod pod) {
    String start = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
    if (start == null || start.isEmpty()) {
      return clock.instant();
    }
    try {
      return StartTimes.parse(start);
    } catch (DateTimeException e) {
      return clock.instant();
    }
  }

  /** The earliest start time among the highest-priority victims; {@code victims} non-empty. */
  Instant earliestStartOfHighestPriority(List<Pod> victims) {
    int maxPriority = Integer.MIN_VALUE;
    Instant earliest = null;
    for (Pod pod : victims) {
      int priority = PrioritySort.podPriority(pod);
      Instant start = startTime(pod);
      if (priority > maxPriority) {
        maxPriority = priority;
        earliest = start;
      } else if (priority == maxPriority && start.isBefore(earliest)) {
        earliest = start;
      }
    }
    return earliest;
  }
}
