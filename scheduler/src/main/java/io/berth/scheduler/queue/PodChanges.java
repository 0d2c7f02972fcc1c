package io.berth.scheduler.queue;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;
import io.berth.framework.PodRequests;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What changed between two versions of a pending pod, as the scheduling queue needs to know.
 * Stateless and thread-safe; never mutates the pods (they are shared with the informer cache).
 */
final class PodChanges {
  private PodChanges() { }

  /**
   * Upstream's {@code isPodUpdated}: whether anything but the resourceVersion, generation,
   * managedFields, finalizers or status (except resource claim statuses) changed.
   */
  static boolean isPodUpdated(Pod oldPod, Pod newPod) {
    if (oldPod == null) {
      return true;
    }
    return !Objects.equals(oldPod.getApiVersion(), newPod.getApiVersion())
        || !Objects.equals(oldPod.getKind(), newPod.getKind())
        || !Objects.equals(oldPod.getSpec(), newPod.getSpec())
        || !Objects.equals(strippedMeta(oldPod.getMetadata()), strippedMeta(newPod.getMetadata()))
        || !Objects.equals(claimStatuses(oldPod), claimStatuses(newPod));
  }

  /**
   * The pod update events upstream's {@code PodSchedulingPropertiesChange} derives: label change,
   * request scale-down, scheduling gates eliminated, toleration added, generated resource claim
   * names changed; UPDATE_OTHER when none.
   */
  static List<ClusterEvent> schedulingPropertiesChange(Pod oldPod, Pod newPod) {
    PodSpec newSpec = newPod.getSpec() == null ? new PodSpec() : newPod.getSpec();
    EventResource resource = newSpec.getNodeName() == null || newSpec.getNodeName().isEmpty()
        ? EventResource.UNSCHEDULED_POD : EventResource.ASSIGNED_POD;
    List<ClusterEvent> events = new ArrayList<>(2);
    if (oldPod != null) {
      PodSpec oldSpec = oldPod.getSpec() == null ? new PodSpec() : oldPod.getSpec();
      if (!Objects.equals(labels(oldPod), labels(newPod))) {
        events.add(new ClusterEvent(resource, ActionType.UPDATE_POD_LABEL));
      }
      if (isScaleDown(oldPod, newPod)) {
        events.add(new ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN));
      }
      if (size(newSpec.getSchedulingGates()) == 0 && size(oldSpec.getSchedulingGates()) != 0) {
        events.add(new ClusterEvent(resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED));
      }
      // API validation only lets tolerations be added, so a different count is the change.
      if (size(newSpec.getTolerations()) != size(oldSpec.getTolerations())) {
        events.add(new ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATION));
      }
      if (!Objects.equals(claimStatuses(oldPod), claimStatuses(newPod))) {
        events.add(new ClusterEvent(resource, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM));
      }
    }
    if (events.isEmpty()) {
      events.add(new ClusterEvent(resource, ActionType.UPDATE_OTHER));
    }
    return events;
  }

  private static boolean isScaleDown(Pod oldPod, Pod newPod) {
    Resource oldReq;
    Resource newReq;
    try {
      oldReq = PodRequests.of(oldPod);
      newReq = PodRequests.of(newPod);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (newReq.milliCpu() < oldReq.milliCpu() || newReq.memory() < oldReq.memory()
        || newReq.ephemeralStorage() < oldReq.ephemeralStorage()) {
      return true;
    }
    for (Map.Entry<String, Long> scalar : oldReq.scalarResources().entrySet()) {
      if (newReq.scalar(scalar.getKey()) < scalar.getValue()) {
        return true;
      }
    }
    return false;
  }

  private static ObjectMeta strippedMeta(ObjectMeta meta) {
    if (meta == null) {
      return null;
    }
    return new ObjectMetaBuilder(meta).withResourceVersion(null).withGeneration(null)
        .withManagedFields((List<io.fabric8.kubernetes.api.model.ManagedFieldsEntry>) null)
        .withFinalizers((List<String>) null).build();
  }

  private static Object claimStatuses(Pod pod) {
    return pod.getStatus() == null ? null : emptyToNull(pod.getStatus().getResourceClaimStatuses());
  }

  private static Object labels(Pod pod) {
    return pod.getMetadata() == null ? null : emptyToNull(pod.getMetadata().getLabels());
  }

  private static Object emptyToNull(Object collection) {
    if (collection instanceof List<?> l && l.isEmpty()) {
      return null;
    }
    if (collection instanceof Map<?, ?> m && m.isEmpty()) {
      return null;
    }
    return collection;
  }

  private static int size(List<?> list) {
    return list == null ? 0 : list.size();
  }
}
