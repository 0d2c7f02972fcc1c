package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import org.junit.jupiter.api.Test;

/** Reading an Event's count and last time whichever API wrote it. */
class EventOccurrencesTest {

  @Test
  void aSeriesWinsOverTheDeprecatedCountAndTimes() {
    Event e = new EventBuilder().withCount(3).withLastTimestamp("2026-12-01T12:00:00Z")
        .withEventTime(new MicroTime("2026-12-01T11:00:00.000001Z"))
        .withNewSeries().withCount(7).withLastObservedTime(new MicroTime("2026-12-01T12:30:00.000002Z")).endSeries()
        .build();
    assertThat(EventOccurrences.count(e)).isEqualTo(7);
    assertThat(EventOccurrences.lastObserved(e)).hasValue("2026-12-01T12:30:00.000002Z");
  }

  @Test
  void aV1EventSeenOnceCountsOneAtItsEventTime() {
    Event e = new EventBuilder().withEventTime(new MicroTime("2026-12-01T11:00:00.000001Z")).build();
    assertThat(EventOccurrences.count(e)).isEqualTo(1);
    assertThat(EventOccurrences.lastObserved(e)).hasValue("2026-12-01T11:00:00.000001Z");
  }

  @Test
  void aCoreV1EventHasItsCountAndLastTimestamp() {
    Event e = new EventBuilder().withCount(4).withLastTimestamp("2026-12-01T12:00:00Z").build();
    assertThat(EventOccurrences.count(e)).isEqualTo(4);
    assertThat(EventOccurrences.lastObserved(e)).hasValue("2026-12-01T12:00:00Z");
    assertThat(EventOccurrences.lastObserved(new Event())).isEmpty();
  }
}
