package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ClusterEvent;
import io.berth.framework.QueueingHint;
import io.berth.framework.QueueingHintFn;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class QueueingHintsTest {
  private static final QueueingHintFn QUEUE = (pod, o, n) -> QueueingHint.QUEUE;
  private static final QueueingHintFn SKIP = (pod, o, n) -> QueueingHint.QUEUE_SKIP;

  private final QueueFixture f = new QueueFixture();

  @Test
  void queueHintMovesOnlyPodsRejectedByAPluginRegisteredForTheEvent() {
    f.profile.register("Fit", TestEvents.NODE_ADD, QUEUE);
    f.profile.register("Taint", TestEvents.NODE_TAINT, QUEUE);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("byFit"), "Fit");
    f.addPopReject(TestPods.named("byTaint"), "Taint");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);

    assertThat(f.where("byFit")).isEqualTo(QueueName.BACKOFF);
    assertThat(f.where("byTaint")).isEqualTo(QueueName.UNSCHEDULABLE);
    assertThat(f.moves).contains("backoff:" + TestEvents.NODE_ADD.label());
  }

  @Test
  void queueSkipLeavesThePodUnschedulable() {
    f.profile.register("Fit", TestEvents.NODE_ADD, SKIP);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
    assertThat(queue.unschedulableSize()).isEqualTo(1);
  }

  @Test
  void eventNotMatchingTheRegistrationLeavesThePodWithoutCallingTheHint() {
    AtomicInteger calls = new AtomicInteger();
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> {
      calls.incrementAndGet();
      return QueueingHint.QUEUE;
    });
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_TAINT, node("n1"), node("n1"), null);

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
    assertThat(calls).hasValue(0);
  }

  @Test
  void anyHintSayingQueueWinsOverSkips() {
    f.profile.register("Fit", TestEvents.NODE_ADD, SKIP);
    f.profile.register("Affinity", TestEvents.NODE_ADD, QUEUE);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit", "Affinity");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void hintsOfPluginsThatDidNotRejectThePodAreIgnored() {
    f.profile.register("Fit", TestEvents.NODE_ADD, SKIP);
    f.profile.register("Other", TestEvents.NODE_ADD, QUEUE);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void pluginWithoutRegistrationsMovesPodsOnAnyEvent() {
    f.profile.register("Fit", TestEvents.NODE_ADD, SKIP);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Unregistered");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.PV_ADD, null, null, null);

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void pluginRegisteredForNoEventsIsMovedOnlyByWildcardEvents() {
    f.profile.registerNothing("Picky");
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Picky");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);
    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);

    queue.moveAllToActiveOrBackoffQueue(ClusterEvent.WILDCARD, null, null, null);
    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void hintThatThrowsCountsAsQueue() {
    f.profile.register("Fit", TestEvents.NODE_ADD, (pod, o, n) -> {
      throw new IllegalStateException("broken hint");
    });
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"), null);

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
  }

  @Test
  void hintSeesThePodAndTheEventObjects() {
    List<Object> seen = new ArrayList<>();
    f.profile.register("Fit", TestEvents.NODE_LABEL, (pod, o, n) -> {
      seen.add(pod.getMetadata().getName());
      seen.add(o);
      seen.add(n);
      return QueueingHint.QUEUE_SKIP;
    });
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("a"), "Fit");
    Node before = node("n1");
    Node after = new NodeBuilder(before).editMetadata().addToLabels("zone", "z").endMetadata()
        .build();

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_LABEL, before, after, null);

    assertThat(seen).containsExactly("a", before, after);
  }

  @Test
  void pendingRejectorSendsThePodStraightToActiveQ() {
    f.profile.register("Volume", TestEvents.PV_ADD, QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    f.rejectPending(f.popNow(), "Volume");
    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);

    queue.moveAllToActiveOrBackoffQueue(TestEvents.PV_ADD, null, null, null);

    assertThat(f.where("a")).as("Pending rejector: no backoff").isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void pendingRejectorsQueueWinsOverAnUnschedulableRejectorsQueue() {
    f.profile.register("Fit", TestEvents.PV_ADD, QUEUE);
    f.profile.register("Volume", TestEvents.PV_ADD, QUEUE);
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));
    var p = f.popNow();
    p.unschedulablePlugins().add("Fit");
    f.rejectPending(p, "Volume");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.PV_ADD, null, null, null);

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void preCheckLimitsWhichPodsAreConsidered() {
    f.profile.register("Fit", TestEvents.NODE_ADD, QUEUE);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("keep"), "Fit");
    f.addPopReject(TestPods.named("move"), "Fit");

    queue.moveAllToActiveOrBackoffQueue(TestEvents.NODE_ADD, null, node("n1"),
        pod -> pod.getMetadata().getName().equals("move"));

    assertThat(f.where("move")).isEqualTo(QueueName.BACKOFF);
    assertThat(f.where("keep")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  @Test
  void assignedPodEventsAreMatchedAgainstAssignedPodRegistrations() {
    f.profile.register("Affinity", SchedulingQueue.ASSIGNED_POD_ADD, QUEUE);
    f.profile.register("Fit", ClusterEvent.ASSIGNED_POD_DELETE, QUEUE);
    SchedulingQueue queue = f.build();
    f.addPopReject(TestPods.named("byAffinity"), "Affinity");
    f.addPopReject(TestPods.named("byFit"), "Fit");
    f.clock.advance(Duration.ofSeconds(1));

    queue.assignedPodAdded(TestPods.pod("running").editSpec().withNodeName("n1").endSpec()
        .build());

    assertThat(f.where("byAffinity")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("byFit")).isEqualTo(QueueName.UNSCHEDULABLE);
  }

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }
}
