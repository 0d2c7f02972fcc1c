package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import org.junit.jupiter.api.Test;

class PodChangesTest {
  private final Pod pod = TestPods.named("a");

  @Test
  void bookkeepingFieldsAndStatusAreNotAnUpdate() {
    Pod newer = new PodBuilder(pod).editMetadata().withResourceVersion("9").withGeneration(4L)
        .addToFinalizers("example.com/f").withManagedFields(new ManagedFieldsEntry())
        .endMetadata().editStatus().withPhase("Pending").withMessage("waiting").endStatus()
        .build();

    assertThat(PodChanges.isPodUpdated(pod, newer)).isFalse();
    assertThat(pod.getMetadata().getResourceVersion()).as("inputs untouched").isEqualTo("1");
  }

  @Test
  void labelAnnotationOrSpecChangesAreUpdates() {
    assertThat(PodChanges.isPodUpdated(pod, TestPods.relabeled(pod, "app", "web"))).isTrue();
    assertThat(PodChanges.isPodUpdated(pod, new PodBuilder(pod).editMetadata()
        .addToAnnotations("note", "x").endMetadata().build())).isTrue();
    assertThat(PodChanges.isPodUpdated(pod, new PodBuilder(pod).editSpec().withPriority(3)
        .endSpec().build())).isTrue();
  }

  @Test
  void schedulingPropertiesChangeNamesWhatChanged() {
    Pod big = TestPods.requesting("a", "2");
    Pod small = new PodBuilder(big).editSpec().editFirstContainer().editResources()
        .addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec().build();
    Pod gated = TestPods.gated("a", "g");
    Pod tolerating = new PodBuilder(pod).editSpec().withTolerations(new Toleration()).endSpec()
        .build();

    assertThat(PodChanges.schedulingPropertiesChange(pod, TestPods.relabeled(pod, "k", "v")))
        .containsExactly(event(ActionType.UPDATE_POD_LABEL));
    assertThat(PodChanges.schedulingPropertiesChange(big, small))
        .containsExactly(event(ActionType.UPDATE_POD_SCALE_DOWN));
    assertThat(PodChanges.schedulingPropertiesChange(small, big))
        .containsExactly(event(ActionType.UPDATE_OTHER));
    assertThat(PodChanges.schedulingPropertiesChange(gated, TestPods.ungated(gated)))
        .containsExactly(event(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED));
    assertThat(PodChanges.schedulingPropertiesChange(pod, tolerating))
        .containsExactly(event(ActionType.UPDATE_POD_TOLERATION));
  }

  @Test
  void boundPodChangesAreAssignedPodEvents() {
    Pod bound = new PodBuilder(pod).editSpec().withNodeName("n1").endSpec().build();

    assertThat(PodChanges.schedulingPropertiesChange(bound, TestPods.relabeled(bound, "k", "v")))
        .containsExactly(new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_LABEL));
  }

  private static ClusterEvent event(long action) {
    return new ClusterEvent(EventResource.UNSCHEDULED_POD, action);
  }
}
