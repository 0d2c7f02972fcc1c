package io.berth.scheduler;

import io.fabric8.kubernetes.api.model.Event;
import java.util.Optional;

/**
 * How many times a core/v1 Event as read back from the server happened, and when last, whichever API wrote it: an
 * Event written through events.k8s.io/v1 (as {@link KubernetesEventRecorder} writes them when the server serves
 * that API) carries its repeats in {@code series} and has no {@code count} or {@code lastTimestamp}; one written
 * through core/v1 has {@code count} and {@code lastTimestamp}. Stateless and thread-safe.
 */
public final class EventOccurrences {

  private EventOccurrences() {
  }

  /** {@code series.count} if there is a series, else {@code count}, else 1 (a single occurrence). */
  public static int count(Event e) {
    if (e.getSeries() != null && e.getSeries().getCount() != null && e.getSeries().getCount() > 0) {
      return e.getSeries().getCount();
    }
    return e.getCount() != null && e.getCount() > 0 ? e.getCount() : 1;
  }

  /**
   * When it last happened, as the server has it: {@code series.lastObservedTime}, else {@code eventTime} (a
   * events.k8s.io/v1 Event seen once), else {@code lastTimestamp}, else the object's creation; empty if none is set.
   */
  public static Optional<String> lastObserved(Event e) {
    if (e.getSeries() != null && e.getSeries().getLastObservedTime() != null
        && notEmpty(e.getSeries().getLastObservedTime().getTime())) {
      return Optional.of(e.getSeries().getLastObservedTime().getTime());
    }
    if (e.getEventTime() != null && notEmpty(e.getEventTime().getTime())) {
      return Optional.of(e.getEventTime().getTime());
    }
    if (notEmpty(e.getLastTimestamp())) {
      return Optional.of(e.getLastTimestamp());
    }
    return Optional.ofNullable(e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp())
        .filter(EventOccurrences::notEmpty);
  }

  private static boolean notEmpty(String s) {
    return s != null && !s.isEmpty();
  }
}
