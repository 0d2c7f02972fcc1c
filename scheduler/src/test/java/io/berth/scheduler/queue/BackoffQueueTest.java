package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodInfo;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BackoffQueueTest {
  private final QueueFixture f = new QueueFixture();
  private SchedulingQueue queue;

  @BeforeEach
  void setUp() {
    queue = f.build();
  }

  @Test
  void podFailedWithoutRejectorsGoesToBackoffQ() {
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();
    f.reject(p);

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
    assertThat(queue.backoffSize()).isEqualTo(1);
    assertThat(queue.inFlightSize()).isZero();
    assertThat(f.moves).contains("backoff:ScheduleAttemptFailure");
  }

  @Test
  void backoffGrowsWithEachFailedAttemptUpToTheCap() {
    queue.add(TestPods.named("a"));
    List<Duration> observed = new ArrayList<>();
    for (int attempt = 1; attempt <= 6; attempt++) {
      QueuedPodInfo p = f.popNow();
      Instant failedAt = f.clock.instant();
      f.reject(p);
      Instant expiry = queue.backoffExpiry(queue.getPod("default", "a").orElseThrow());
      observed.add(Duration.between(failedAt, expiry));
      f.clock.advance(Duration.between(failedAt, expiry).minusMillis(1));
      queue.flushBackoffQCompleted();
      assertThat(f.where("a")).as("just before expiry").isEqualTo(QueueName.BACKOFF);
      f.clock.advance(Duration.ofMillis(1));
      queue.flushBackoffQCompleted();
      assertThat(f.where("a")).as("at expiry").isEqualTo(QueueName.ACTIVE);
    }
    assertThat(observed).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(10),
        Duration.ofSeconds(10));
  }

  @Test
  void flushBackoffQCompletedMovesOnlyExpiredPods() {
    queue.add(TestPods.named("early1"));
    queue.add(TestPods.named("early2"));
    f.reject(f.popNow());
    f.reject(f.popNow());
    f.clock.advance(Duration.ofMillis(500));
    queue.add(TestPods.named("late"));
    f.reject(f.popNow());

    f.clock.advance(Duration.ofMillis(600));
    queue.flushBackoffQCompleted();

    assertThat(f.where("early1")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("early2")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("late")).isEqualTo(QueueName.BACKOFF);
    assertThat(f.moves).contains("active:BackoffComplete");
  }

  @Test
  void backoffQServesEarliestExpiryFirstAndQueueSortOrderOnTies() {
    // PodQueues is the queue's state without the lock; single-threaded here, so no lock needed.
    PodQueues q = new PodQueues(new PrioritySortForTest(), Map.of(TestPods.PROFILE, f.profile),
        new PodBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10)), Duration.ofMinutes(5),
        f.clock, QueueListener.NOOP, () -> { }, false);
    q.add(PodInfo.of(TestPods.withPriority("earliest", 0)));
    q.add(PodInfo.of(TestPods.withPriority("tieLow", 1)));
    q.add(PodInfo.of(TestPods.withPriority("tieHigh", 7)));
    q.add(PodInfo.of(TestPods.withPriority("later", 100)));
    Map<String, QueuedPodInfo> popped = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      QueuedPodInfo p = q.pop();
      popped.put(p.pod().getMetadata().getName(), p);
    }
    q.addUnschedulableIfNotPresent(popped.get("earliest"), 4);
    f.clock.advance(Duration.ofMillis(1));
    q.addUnschedulableIfNotPresent(popped.get("tieLow"), 4);
    q.addUnschedulableIfNotPresent(popped.get("tieHigh"), 4);
    f.clock.advance(Duration.ofMillis(1));
    q.addUnschedulableIfNotPresent(popped.get("later"), 4);

    List<String> order = new ArrayList<>();
    q.backoffQ.popEachCompleted(f.clock.instant().plus(Duration.ofDays(1)),
        next -> order.add(next.pod().getMetadata().getName()));
    assertThat(order).containsExactly("earliest", "tieHigh", "tieLow", "later");
  }

  @Test
  void podPastItsBackoffGoesStraightToActiveQOnAnEvent() {
    f.profile.register("P", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    f.addPopReject(TestPods.named("a"), "P");
    f.clock.advance(Duration.ofSeconds(1));

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }
}
