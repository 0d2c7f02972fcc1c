package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ActiveQueueOrderTest {
  private final QueueFixture f = new QueueFixture();
  private SchedulingQueue queue;

  @BeforeEach
  void setUp() {
    queue = f.build();
  }

  @Test
  void popsHigherPriorityFirst() {
    queue.add(TestPods.withPriority("low", 1));
    queue.add(TestPods.withPriority("high", 100));
    queue.add(TestPods.withPriority("mid", 50));

    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("high");
    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("mid");
    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("low");
  }

  @Test
  void popsEarlierTimestampFirstOnEqualPriority() {
    queue.add(TestPods.withPriority("first", 5));
    f.clock.advance(Duration.ofMillis(1));
    queue.add(TestPods.withPriority("second", 5));
    f.clock.advance(Duration.ofMillis(1));
    queue.add(TestPods.withPriority("third", 5));

    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("first");
    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("second");
    assertThat(f.popNow().pod().getMetadata().getName()).isEqualTo("third");
  }

  @Test
  void priorityUpdateInActiveQReordersIt() {
    var low = TestPods.withPriority("low", 1);
    queue.add(low);
    queue.add(TestPods.withPriority("high", 10));

    var raised = new io.fabric8.kubernetes.api.model.PodBuilder(low).editSpec().withPriority(20)
        .endSpec().editMetadata().withResourceVersion("2").endMetadata().build();
    queue.update(low, raised);

    assertThat(queue.activeSize()).isEqualTo(2);
    QueuedPodInfo first = f.popNow();
    assertThat(first.pod().getMetadata().getName()).isEqualTo("low");
    assertThat(first.pod().getSpec().getPriority()).isEqualTo(20);
  }

  @Test
  void popCountsAttemptsAndSchedulingCycles() {
    Instant added = f.clock.instant();
    queue.add(TestPods.named("a"));
    f.clock.advance(Duration.ofSeconds(3));

    QueuedPodInfo first = f.popNow();
    assertThat(first.attempts()).isEqualTo(1);
    assertThat(first.initialAttemptTimestamp()).contains(added);
    assertThat(queue.schedulingCycle()).isEqualTo(1);
    assertThat(queue.inFlightSize()).isEqualTo(1);

    f.reject(first);
    f.clock.advance(Duration.ofSeconds(1));
    queue.flushBackoffQCompleted();
    QueuedPodInfo second = f.popNow();
    assertThat(second.attempts()).isEqualTo(2);
    assertThat(second.initialAttemptTimestamp()).contains(added);
    assertThat(queue.schedulingCycle()).isEqualTo(2);
  }

  @Test
  void popClearsTheRejectorsOfThePreviousAttempt() {
    QueuedPodInfo p = f.addPopReject(TestPods.named("a"), "NodeResourcesFit");
    queue.activate(java.util.List.of(p.pod()));

    QueuedPodInfo again = f.popNow();
    assertThat(again.unschedulablePlugins()).isEmpty();
    assertThat(again.pendingPlugins()).isEmpty();
  }

  @Test
  void doneEndsTheAttempt() {
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();
    assertThat(queue.inFlightPods()).extracting(pod -> pod.getMetadata().getName())
        .containsExactly("a");

    queue.done(p.pod().getMetadata().getUid());

    assertThat(queue.inFlightSize()).isZero();
    assertThat(queue.pendingPods()).isEmpty();
  }
}
