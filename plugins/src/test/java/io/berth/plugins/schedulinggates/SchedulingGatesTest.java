package io.berth.plugins.schedulinggates;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulingGatesTest {
  private final PreEnqueuePlugin plugin = (PreEnqueuePlugin) SchedulingGates.create(Map.of(), null);

  @Test
  void podWithoutGatesIsAdmitted() {
    assertThat(plugin.preEnqueue(pod("p", "uid-p"))).isEqualTo(Status.SUCCESS);
  }

  @Test
  void gatedPodIsRejectedListingItsGatesInOrder() {
    Status status = plugin.preEnqueue(pod("p", "uid-p", "foo", "bar"));

    assertThat(status.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(status.reasons()).containsExactly("waiting for scheduling gates: [foo bar]");
  }

  @Test
  void registersGatesEliminatedForUnscheduledPods() {
    List<ClusterEventWithHint> events = ((EnqueueExtensions) plugin).eventsToRegister();

    assertThat(events).hasSize(1);
    ClusterEvent registered = events.get(0).event();
    assertThat(registered.resource()).isEqualTo(EventResource.UNSCHEDULED_POD);
    assertThat(registered.actionType())
        .isEqualTo(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED);
    assertThat(registered.matches(new ClusterEvent(EventResource.UNSCHEDULED_POD,
        ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))).isTrue();
  }

  @Test
  void queuesTheGatedPodOnceItsGatesAreGone() {
    Pod gated = pod("p", "uid-p", "foo");
    QueueingHint hint = hint().hint(gated, pod("p", "uid-p", "foo"), pod("p", "uid-p"));
    assertThat(hint).isEqualTo(QueueingHint.QUEUE);
  }

  @Test
  void skipsAnotherPodsGateRemoval() {
    Pod gated = pod("p", "uid-p", "foo");
    QueueingHint hint = hint().hint(gated, pod("q", "uid-q", "foo"), pod("q", "uid-q"));
    assertThat(hint).isEqualTo(QueueingHint.QUEUE_SKIP);
  }

  @Test
  void skipsWhileTheTargetStillHasAGate() {
    Pod gated = pod("p", "uid-p", "foo", "bar");
    QueueingHint hint = hint().hint(gated, gated, pod("p", "uid-p", "bar"));
    assertThat(hint).isEqualTo(QueueingHint.QUEUE_SKIP);
  }

  @Test
  void queuesOnAnUnexpectedObject() {
    assertThat(hint().hint(pod("p", "uid-p", "foo"), null, "not-a-pod"))
        .isEqualTo(QueueingHint.QUEUE);
  }

  private io.berth.framework.QueueingHintFn hint() {
    return ((EnqueueExtensions) plugin).eventsToRegister().get(0).hint();
  }

  private static Pod pod(String name, String uid, String... gates) {
    List<PodSchedulingGate> list = java.util.Arrays.stream(gates)
        .map(g -> new PodSchedulingGate(g)).toList();
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").withUid(uid)
        .endMetadata().withNewSpec().withSchedulingGates(list).endSpec().build();
  }
}
