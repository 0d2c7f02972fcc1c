package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCorrelatorTest {

  private static final ReplicaSet RS = new ReplicaSetBuilder().withNewMetadata().withName("web")
      .withNamespace("default").withUid("rs-uid").withResourceVersion("7").endMetadata().build();

  private final MovableClock clock = new MovableClock(Instant.parse("2025-06-01T12:00:00Z"));
  private final EventCorrelator correlator = new EventCorrelator(clock);

  private Event event(String reason, String message) {
    return KubernetesEventRecorderFactory.makeEvent("replicaset-controller", RS, "Normal", reason, message,
        clock.instant());
  }

  /** What the server returns for a created event. */
  private static Event written(Event e, String rv) {
    return new EventBuilder(e).editMetadata().withResourceVersion(rv).endMetadata().build();
  }

  @Test
  void aNewEventIsCreatedAsIs() {
    Event e = event("SuccessfulCreate", "Created pod: web-1");
    EventCorrelator.Result r = correlator.correlate(e);
    assertThat(r.skip()).isFalse();
    assertThat(r.patch()).isEmpty();
    assertThat(r.event()).isEqualTo(e);
    assertThat(r.event().getMetadata().getName()).startsWith("web.");
    assertThat(r.event().getInvolvedObject().getKind()).isEqualTo("ReplicaSet");
    assertThat(r.event().getInvolvedObject().getApiVersion()).isEqualTo("apps/v1");
    assertThat(r.event().getInvolvedObject().getResourceVersion()).isEqualTo("7");
    assertThat(r.event().getSource().getComponent()).isEqualTo("replicaset-controller");
  }

  @Test
  void anIdenticalEventBecomesACountPatchOfTheFirstOne() {
    Event first = event("FailedCreate", "Error creating: quota");
    EventCorrelator.Result r1 = correlator.correlate(first);
    correlator.updateState(written(r1.event(), "11"));
    clock.advance(Duration.ofSeconds(30));
    EventCorrelator.Result r2 = correlator.correlate(event("FailedCreate", "Error creating: quota"));
    assertThat(r2.event().getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    assertThat(r2.event().getCount()).isEqualTo(2);
    assertThat(r2.event().getFirstTimestamp()).isEqualTo("2025-06-01T12:00:00Z");
    assertThat(r2.event().getLastTimestamp()).isEqualTo("2025-06-01T12:00:30Z");
    assertThat(Serialization.unmarshal(r2.patch().orElseThrow(), Map.class)).isEqualTo(Map.of("count", 2,
        "lastTimestamp", "2025-06-01T12:00:30Z", "message", "Error creating: quota"));
  }

  @Test
  void moreThanTenMessagesOfOneReasonAreCombinedIntoOneCountedEvent() {
    for (int i = 0; i < 9; i++) {
      EventCorrelator.Result r = correlator.correlate(event("SuccessfulCreate", "Created pod: web-" + i));
      assertThat(r.event().getMessage()).isEqualTo("Created pod: web-" + i);
      assertThat(r.patch()).isEmpty();
    }
    EventCorrelator.Result tenth = correlator.correlate(event("SuccessfulCreate", "Created pod: web-9"));
    assertThat(tenth.event().getMessage()).isEqualTo("(combined from similar events): Created pod: web-9");
    assertThat(tenth.patch()).isEmpty();
    EventCorrelator.Result eleventh = correlator.correlate(event("SuccessfulCreate", "Created pod: web-10"));
    assertThat(eleventh.event().getMessage()).isEqualTo("(combined from similar events): Created pod: web-10");
    assertThat(eleventh.event().getMetadata().getName()).isEqualTo(tenth.event().getMetadata().getName());
    assertThat(eleventh.event().getCount()).isEqualTo(2);
    assertThat(eleventh.patch()).isPresent();
    // other reasons are not affected
    assertThat(correlator.correlate(event("SuccessfulDelete", "Deleted pod: web-1")).event().getMessage())
        .isEqualTo("Deleted pod: web-1");
  }

  @Test
  void aggregationStartsAfreshAfterTenQuietMinutes() {
    for (int i = 0; i < 9; i++) {
      correlator.correlate(event("SuccessfulCreate", "Created pod: web-" + i));
    }
    clock.advance(Duration.ofSeconds(601));
    assertThat(correlator.correlate(event("SuccessfulCreate", "Created pod: web-9")).event().getMessage())
        .isEqualTo("Created pod: web-9");
  }

  @Test
  void theSpamFilterLetsTwentyFiveEventsPerObjectThroughThenOnePerFiveMinutes() {
    int accepted = 0;
    for (int i = 0; i < 40; i++) {
      if (!correlator.correlate(event("Reason" + i, "message")).skip()) {
        accepted++;
      }
    }
    assertThat(accepted).isEqualTo(25);
    clock.advance(Duration.ofSeconds(299));
    assertThat(correlator.correlate(event("Late", "m")).skip()).isTrue();
    clock.advance(Duration.ofSeconds(2));
    assertThat(correlator.correlate(event("Later", "m")).skip()).isFalse();
    assertThat(correlator.correlate(event("Latest", "m")).skip()).isTrue();
  }

  @Test
  void concurrentIdenticalEventsAreCountedExactlyAndFilteredOnce() throws Exception {
    int threads = 8;
    int perThread = 500;
    java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger maxCount = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    List<Thread> workers = new java.util.ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < perThread; i++) {
          EventCorrelator.Result r = correlator.correlate(event("FailedCreate", "Error creating: quota"));
          if (!r.skip()) {
            accepted.incrementAndGet();
            maxCount.accumulateAndGet(r.event().getCount(), Math::max);
          }
        }
      });
      workers.add(w);
      w.start();
    }
    go.countDown();
    for (Thread w : workers) {
      w.join(30_000);
    }
    assertThat(accepted.get()).isEqualTo(EventCorrelator.SPAM_BURST);
    assertThat(maxCount.get()).isEqualTo(EventCorrelator.SPAM_BURST);
    EventCorrelator.Result next = correlator.correlate(event("FailedCreate", "Error creating: quota"));
    assertThat(next.skip()).isTrue();
    clock.advance(Duration.ofSeconds(EventCorrelator.SPAM_REFILL_SECONDS + 1));
    assertThat(correlator.correlate(event("FailedCreate", "Error creating: quota")).event().getCount())
        .isEqualTo(threads * perThread + 2);
  }
}
