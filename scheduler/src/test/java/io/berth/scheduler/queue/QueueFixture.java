package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueuedPodInfo;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A scheduling queue on a fake clock with one {@link FakeProfile}, and shorthands for the
 * scheduling loop's side. Configure {@link #profile} before {@link #build()}. Confined to the
 * test's thread unless a test says otherwise.
 */
final class QueueFixture {
  final FakeClock clock = new FakeClock();
  final FakeProfile profile = new FakeProfile();
  /** "queue:event" for every move the listener saw. */
  final List<String> moves = new CopyOnWriteArrayList<>();
  /**
   * SchedulerPopFromBackoffQ; off unless a test turns it on, so the queue tests written for v1.32
   * keep pinning the gate-off queue.
   */
  boolean popFromBackoffQ;
  SchedulingQueue queue;

  SchedulingQueue build() {
    queue = SchedulingQueue.builder(new PrioritySortForTest(), Map.of(TestPods.PROFILE, profile))
        .clock(clock)
        .popFromBackoffQ(popFromBackoffQ)
        .listener((q, event) -> moves.add(q.label() + ":" + event))
        .build();
    return queue;
  }

  /** Pops a pod that must already be in activeQ (never blocks a failing test). */
  QueuedPodInfo popNow() {
    assertThat(queue.activeSize()).as("activeQ before pop").isPositive();
    try {
      return queue.pop().orElseThrow();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Ends the attempt as rejected by the given Unschedulable plugins (none: an error). */
  void reject(QueuedPodInfo pInfo, String... plugins) {
    Collections.addAll(pInfo.unschedulablePlugins(), plugins);
    queue.addUnschedulableIfNotPresent(pInfo, queue.schedulingCycle());
  }

  /** Ends the attempt as rejected by the given Pending plugins. */
  void rejectPending(QueuedPodInfo pInfo, String... plugins) {
    Collections.addAll(pInfo.pendingPlugins(), plugins);
    queue.addUnschedulableIfNotPresent(pInfo, queue.schedulingCycle());
  }

  /** Adds the pod, pops it and rejects it: it ends in unschedulablePods (no events seen). */
  QueuedPodInfo addPopReject(io.fabric8.kubernetes.api.model.Pod pod, String... plugins) {
    queue.add(pod);
    QueuedPodInfo p = popNow();
    assertThat(p.pod().getMetadata().getName()).isEqualTo(pod.getMetadata().getName());
    reject(p, plugins);
    return p;
  }

  QueueName where(String name) {
    return queue.queueOf("default", name).orElse(null);
  }
}
