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

  /** Most important first: higher priority, then earlier start. */
  Comparator<Pod> mostImportantFirst() {
    return (a, b) -> {
      int pa = PrioritySort.podPriority(a);
      int pb = PrioritySort.podPriority(b);
      if (pa != pb) {
        return pa > pb ? -1 : 1;
      }
      return compareStartTimes(a, b);
    };
  }

  /**
   * As {@code startTime(a).compareTo(startTime(b))}; when both carry the canonical form (every pod the API server
   * started) by their epoch seconds, without building Instants: a sort of a node's victims compares each pod
   * several times.
   */
  int compareStartTimes(Pod a, Pod b) {
    long sa = StartTimes.canonicalEpochSecond(startText(a));
    long sb = sa == StartTimes.NOT_CANONICAL ? sa : StartTimes.canonicalEpochSecond(startText(b));
    if (sb != StartTimes.NOT_CANONICAL) {
      return Long.compare(sa, sb);
    }
    return startTime(a).compareTo(startTime(b));
  }

  private static String startText(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getStartTime();
  }

  /** The pod's start time, or now when it has not started (assumed or just bound pods). */
  Instant startTime(Pod pod) {
    String start = startText(pod);
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
