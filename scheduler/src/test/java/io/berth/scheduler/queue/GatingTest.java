package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ClusterEvent;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GatingTest {
  private final QueueFixture f = new QueueFixture();

  @Test
  void gatedPodWaitsInUnschedulablePodsWithoutCountingAsUnschedulable() {
    f.profile.withSchedulingGates();
    SchedulingQueue queue = f.build();

    queue.add(TestPods.gated("a", "example.com/gate"));

    assertThat(f.where("a")).isEqualTo(QueueName.GATED);
    assertThat(queue.gatedSize()).isEqualTo(1);
    assertThat(queue.unschedulableSize()).isZero();
    assertThat(queue.activeSize()).isZero();
    QueuedPodInfo p = queue.getPod("default", "a").orElseThrow();
    assertThat(p.gatingPlugin()).contains(FakeProfile.SCHEDULING_GATES);
    assertThat(p.initialAttemptTimestamp()).as("never entered activeQ").isEmpty();
    assertThat(f.moves).containsExactly("gated:UnschedulablePodAdd");
  }

  @Test
  void updateThatLiftsTheGatesMovesThePodToActiveQ() {
    f.profile.withSchedulingGates();
    SchedulingQueue queue = f.build();
    Pod gated = TestPods.gated("a", "example.com/gate");
    queue.add(gated);
    f.clock.advance(Duration.ofSeconds(7));

    queue.update(gated, TestPods.ungated(gated));

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
    assertThat(queue.gatedSize()).isZero();
    QueuedPodInfo p = f.popNow();
    assertThat(p.gatingPlugin()).isEmpty();
    assertThat(p.initialAttemptTimestamp()).contains(f.clock.instant());
  }

  @Test
  void updateThatKeepsTheGatesLeavesThePodGated() {
    f.profile.withSchedulingGates();
    SchedulingQueue queue = f.build();
    Pod gated = TestPods.gated("a", "example.com/gate");
    queue.add(gated);

    queue.update(gated, TestPods.relabeled(gated, "app", "web"));

    assertThat(f.where("a")).isEqualTo(QueueName.GATED);
    assertThat(queue.getPod("default", "a").orElseThrow().pod().getMetadata().getLabels())
        .containsEntry("app", "web");
    assertThat(queue.gatedSize()).isEqualTo(1);
  }

  @Test
  void podsGatedBySchedulingGatesIgnoreClusterEventsEvenWildcards() {
    AtomicInteger preEnqueueRuns = new AtomicInteger();
    f.profile.withSchedulingGates();
    FakeProfile gates = new FakeProfile().withSchedulingGates();
    f.profile.withPreEnqueue(pod -> {
      preEnqueueRuns.incrementAndGet();
      return gates.runPreEnqueuePlugins(pod);
    });
    SchedulingQueue queue = f.build();
    queue.add(TestPods.gated("a", "example.com/gate"));
    f.clock.advance(Duration.ofMinutes(10));

    queue.moveAllToActiveOrBackoffQueue(ClusterEvent.WILDCARD, null, null, null);
    queue.flushUnschedulablePodsLeftover();

    assertThat(f.where("a")).isEqualTo(QueueName.GATED);
    assertThat(preEnqueueRuns).as("only the add ran PreEnqueue").hasValue(1);
  }

  @Test
  void podGatedByAnotherPluginIsRecheckedOnAnEventItsHintAccepts() {
    AtomicBoolean quotaFree = new AtomicBoolean(false);
    f.profile.withPreEnqueue(pod -> quotaFree.get()
        ? Status.SUCCESS : Status.unschedulable("no quota").withPlugin("Quota"));
    f.profile.register("Quota", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    assertThat(f.where("a")).isEqualTo(QueueName.GATED);

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    assertThat(f.where("a")).as("PreEnqueue still fails").isEqualTo(QueueName.GATED);
    assertThat(queue.gatedSize()).isEqualTo(1);

    quotaFree.set(true);
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_TAINT, null, null, null);
    assertThat(f.where("a")).as("event the hint did not register").isEqualTo(QueueName.GATED);

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
    assertThat(queue.gatedSize()).isZero();
  }

  @Test
  void activateReRunsPreEnqueue() {
    AtomicBoolean open = new AtomicBoolean(false);
    f.profile.withPreEnqueue(pod -> open.get()
        ? Status.SUCCESS : Status.unschedulable("closed").withPlugin("Gate"));
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    queue.add(pod);

    queue.activate(java.util.List.of(pod));
    assertThat(f.where("a")).isEqualTo(QueueName.GATED);

    open.set(true);
    queue.activate(java.util.List.of(pod));
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }
}
