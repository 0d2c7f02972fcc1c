package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueueingHint;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnschedulableTimeoutTest {
  private final QueueFixture f = new QueueFixture();

  @Test
  void unschedulablePodIsRetriedAfterFiveMinutes() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE_SKIP);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");

    f.clock.advance(Duration.ofMinutes(5));
    queue.flushUnschedulablePodsLeftover();
    assertThat(f.where("a")).as("exactly 5 min").isEqualTo(QueueName.UNSCHEDULABLE);

    f.clock.advance(Duration.ofMillis(1));
    queue.flushUnschedulablePodsLeftover();
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.moves).contains("active:UnschedulableTimeout");
  }

  @Test
  void onlyPodsOlderThanTheMaximumAreRetried() {
    f.profile.registerNothing("Fit");
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("old"), "Fit");
    f.clock.advance(Duration.ofMinutes(3));
    f.addPopReject(TestPods.named("young"), "Fit");
    f.clock.advance(Duration.ofMinutes(3));

    queue.flushUnschedulablePodsLeftover();

    assertThat(f.where("old")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("young")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void maximumIsConfigurable() {
    f.profile.registerNothing("Fit");
    f.queue = SchedulingQueue.builder(new PrioritySortForTest(),
            java.util.Map.of(TestPods.PROFILE, f.profile))
        .clock(f.clock).podMaxInUnschedulablePodsDuration(Duration.ofSeconds(30)).build();
    f.addPopReject(TestPods.named("a"), "Fit");

    f.clock.advance(Duration.ofSeconds(31));
    f.queue.flushUnschedulablePodsLeftover();

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }
}
