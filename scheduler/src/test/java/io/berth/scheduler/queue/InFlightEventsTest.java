package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-flight rule: events seen while a pod was being scheduled are replayed on rejection. */
class InFlightEventsTest {
  private final QueueFixture f = new QueueFixture();

  @Test
  void eventDuringTheAttemptSendsTheRejectedPodToBackoffQ() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    f.reject(p, "Fit");

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void eventTheHintSkipsLeavesTheRejectedPodUnschedulable() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE_SKIP);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    f.reject(p, "Fit");

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void eventOfAnotherPluginDuringTheAttemptLeavesThePodUnschedulable() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    f.profile.register("Taint", TestEvents.NODE_TAINT, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_TAINT, null, null, null);
    f.reject(p, "Fit");

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void eventBeforeThePopIsNotReplayed() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("early"));
    queue.add(TestPods.named("late"));
    QueuedPodInfo early = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    QueuedPodInfo late = f.popNow();

    f.reject(late, "Fit");
    f.reject(early, "Fit");

    assertThat(f.where("late")).isEqualTo(QueueName.UNSCHEDULABLE);
    assertThat(f.where("early")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void eventsAreKeptOnlyWhileAnAttemptThatSawThemRuns() {
    SchedulingQueue queue = f.build();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    assertThat(queue.inFlightEventCount()).as("nobody in flight").isZero();

    queue.add(TestPods.named("a"));
    queue.add(TestPods.named("b"));
    QueuedPodInfo a = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    QueuedPodInfo b = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_TAINT, null, null, null);
    assertThat(queue.inFlightEventCount()).isEqualTo(2);

    queue.done(b.pod().getMetadata().getUid());
    assertThat(queue.inFlightEventCount()).as("a still needs both").isEqualTo(2);
    queue.done(a.pod().getMetadata().getUid());
    assertThat(queue.inFlightEventCount()).isZero();
  }

  @Test
  void eventsNeededOnlyByLaterAttemptsSurviveTheOldestAttempt() {
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    queue.add(TestPods.named("b"));
    QueuedPodInfo a = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, null, null);
    QueuedPodInfo b = f.popNow();
    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_TAINT, null, null, null);

    queue.done(a.pod().getMetadata().getUid());

    assertThat(queue.inFlightEventCount()).as("only the taint event follows b's pop").isEqualTo(1);
    queue.done(b.pod().getMetadata().getUid());
    assertThat(queue.inFlightEventCount()).isZero();
  }

  @Test
  void updateOfThePodDuringItsAttemptIsReplayed() {
    f.profile.register("Spread", TestEvents.UNSCHEDULED_POD_LABEL,
        (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    queue.add(pod);
    QueuedPodInfo p = f.popNow();

    queue.update(pod, TestPods.relabeled(pod, "app", "web"));
    assertThat(queue.pendingPods()).as("not queued twice while in flight").isEmpty();
    f.reject(p, "Spread");

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void updateOfAnotherPodDuringTheAttemptIsNotReplayed() {
    f.profile.register("Spread", new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE),
        (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    Pod other = TestPods.named("other");
    f.addPopReject(other, "Fit");
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.update(other, TestPods.relabeled(other, "app", "web"));
    f.reject(p, "Spread");

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void activateDuringTheAttemptRequeuesThePod() {
    f.profile.registerNothing("Permit");
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.activate(List.of(p.pod()));
    f.reject(p, "Permit");

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void pendingRejectorWithAnEventDuringTheAttemptGoesToActiveQ() {
    f.profile.register("Volume", TestEvents.PV_ADD, (pod, o, n) -> QueueingHint.QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.PV_ADD, null, null, null);
    f.rejectPending(p, "Volume");

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void podDeletedDuringItsAttemptIsNotRequeued() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    queue.add(pod);
    QueuedPodInfo p = f.popNow();

    queue.delete(pod);
    f.reject(p);

    assertThat(queue.pendingPods()).isEmpty();
    assertThat(queue.inFlightSize()).isZero();
  }

  @Test
  void rejectingAPodThatIsAlreadyQueuedFailsAndEndsTheAttempt() {
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    QueuedPodInfo p = f.popNow();
    // A copy of the pod with another UID under the same name: the informer re-created it.
    queue.add(TestPods.pod("a").editMetadata().withUid("uid-a2").endMetadata().build());

    assertThatThrownBy(() -> f.reject(p, "Fit"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("active queue");
    assertThat(queue.inFlightSize()).isZero();
  }

  @Test
  void podComingBackWithoutAnAttemptGoesAfterBackoff() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> QueueingHint.QUEUE_SKIP);
    SchedulingQueue queue = f.build();
    QueuedPodInfo stray = new QueuedPodInfo(io.berth.framework.PodInfo.of(TestPods.named("a")),
        f.clock.instant());
    stray.incrementAttempts();

    f.reject(stray, "Fit");

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }
}
