package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UpdateDeleteTest {
  private final QueueFixture f = new QueueFixture();

  @Test
  void updateInBackoffQReplacesThePodInPlace() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    queue.add(pod);
    f.reject(f.popNow());
    Pod relabeled = TestPods.relabeled(pod, "app", "web");

    queue.update(pod, relabeled);

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
    QueuedPodInfo p = queue.getPod("default", "a").orElseThrow();
    assertThat(p.pod()).isSameAs(relabeled);
    assertThat(p.attempts()).isEqualTo(1);
  }

  @Test
  void statusOnlyUpdateKeepsThePodUnschedulable() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    f.addPopReject(pod, "Fit");
    Pod newer = TestPods.statusChanged(pod, "0/3 nodes are available");

    queue.update(pod, newer);

    assertThat(f.where("a")).isEqualTo(QueueName.UNSCHEDULABLE);
    assertThat(queue.getPod("default", "a").orElseThrow().pod()).isSameAs(newer);
  }

  @Test
  void realUpdateMovesABackingOffUnschedulablePodToBackoffQ() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    f.addPopReject(pod, "Fit");

    queue.update(pod, TestPods.relabeled(pod, "app", "web"));

    assertThat(f.where("a")).isEqualTo(QueueName.BACKOFF);
    assertThat(f.moves).contains("backoff:UnschedulablePodUpdate");
  }

  @Test
  void realUpdateMovesAnUnschedulablePodPastItsBackoffToActiveQ() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");
    f.addPopReject(pod, "Fit");
    f.clock.advance(Duration.ofSeconds(1));

    queue.update(pod, TestPods.relabeled(pod, "app", "web"));

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
    assertThat(queue.unschedulableSize()).isZero();
  }

  @Test
  void updateOfAnUnknownPodAddsIt() {
    SchedulingQueue queue = f.build();
    Pod pod = TestPods.named("a");

    queue.update(pod, TestPods.relabeled(pod, "app", "web"));

    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @ParameterizedTest
  @EnumSource(QueueName.class)
  void deleteRemovesThePodFromEveryQueue(QueueName where) {
    f.profile.withSchedulingGates();
    SchedulingQueue queue = f.build();
    Pod pod = where == QueueName.GATED ? TestPods.gated("a", "g") : TestPods.named("a");
    switch (where) {
      case ACTIVE, GATED -> queue.add(pod);
      case BACKOFF -> {
        queue.add(pod);
        f.reject(f.popNow());
      }
      case UNSCHEDULABLE -> f.addPopReject(pod, "Fit");
      default -> throw new AssertionError(where);
    }
    assertThat(f.where("a")).isEqualTo(where);

    queue.delete(pod);

    assertThat(f.where("a")).isNull();
    assertThat(queue.pendingPods()).isEmpty();
    assertThat(queue.activeSize() + queue.backoffSize() + queue.unschedulableSize()
        + queue.gatedSize()).isZero();
  }

  @Test
  void activateMovesPodsFromUnschedulableAndBackoffQToActiveQ() {
    SchedulingQueue queue = f.build();
    Pod stuck = TestPods.named("stuck");
    Pod waiting = TestPods.named("waiting");
    f.addPopReject(stuck, "Fit");
    queue.add(waiting);
    f.reject(f.popNow());
    Pod unknown = TestPods.named("unknown");

    queue.activate(List.of(stuck, waiting, unknown));

    assertThat(f.where("stuck")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("waiting")).isEqualTo(QueueName.ACTIVE);
    assertThat(f.where("unknown")).isNull();
    assertThat(queue.activeSize()).isEqualTo(2);
    assertThat(f.moves).contains("active:ForceActivate");
  }

  @Test
  void pendingPodsAreCopies() {
    SchedulingQueue queue = f.build();
    queue.add(TestPods.named("a"));

    QueuedPodInfo copy = queue.pendingPods().get(0);
    copy.incrementAttempts();
    copy.unschedulablePlugins().add("X");

    QueuedPodInfo again = queue.getPod("default", "a").orElseThrow();
    assertThat(again.attempts()).isZero();
    assertThat(again.unschedulablePlugins()).isEmpty();
    assertThat(queue.pendingPodsSummary()).isEqualTo("activeQ:1; backoffQ:0; unschedulablePods:0");
  }
}
