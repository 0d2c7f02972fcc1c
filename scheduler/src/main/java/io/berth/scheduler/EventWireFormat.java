package io.berth.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One Event API as {@link KubernetesEventRecorder} writes it: where its Events live, which occurrences are one
 * series (one Event object whose repeats are counted), the body of a create and the strategic-merge patch that
 * records a repeat. The recorder's correlation, queueing and write concurrency are the same for every format; only
 * this differs between core/v1 ({@link CoreV1EventFormat}) and events.k8s.io/v1 ({@link EventsV1EventFormat}).
 * Implementations are immutable and thread-safe.
 */
sealed interface EventWireFormat permits CoreV1EventFormat, EventsV1EventFormat {

  /** The API the Events are written through, as logged: {@code v1} or {@code events.k8s.io/v1}. */
  String apiVersion();

  /** The API's path below the server's root, without slashes: {@code api/v1}, {@code apis/events.k8s.io/v1}. */
  String path();

  /** The component the Events are reported by (the profile's scheduler name). */
  String component();

  /**
   * Which occurrences are repeats of one another: equal keys (by {@code equals}) are one series. The key is a
   * value the recorder only compares and keeps.
   */
  Object seriesKey(EventOccurrence occurrence);

  /**
   * How long a series stays open without a repeat: an occurrence after that starts a new Event. Empty: until the
   * recorder forgets the series (its bounded memory of recent series).
   */
  Optional<Duration> seriesIdle();

  /**
   * The whole Event {@code name} of a series: its first occurrence, {@code count} occurrences so far (1 on a first
   * write; more when an Event the server lost is written again), the latest at {@code last}.
   */
  String create(EventOccurrence first, String name, int count, Instant last);

  /** The strategic-merge patch recording that the series has reached {@code count}, the latest at {@code last}. */
  String repeat(int count, Instant last);
}
