package io.berth.plugins.dynamicresources;

import io.berth.framework.QueueingHint;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.Objects;

/**
 * DynamicResources' queueing hints, as upstream's {@code isSchedulableAfterClaimChange} and
 * {@code isSchedulableAfterPodChange}, plus hints for DeviceClass and ResourceSlice events.
 * Called under the queue's lock: quick, and they err on the side of queueing. Stateless.
 */
final class QueueingHints {
  private QueueingHints() {}

  static QueueingHint afterClaimChange(PodClaims podClaims, Pod pod, Object oldObj,
      Object newObj) {
    if (!(newObj instanceof ResourceClaim modified)) {
      throw new IllegalArgumentException("unexpected object in isSchedulableAfterClaimChange");
    }
    ResourceClaim original = oldObj instanceof ResourceClaim c ? c : null;
    boolean usesClaim;
    try {
      usesClaim = podClaims.of(pod).stream().anyMatch(c ->
          Objects.equals(c.getMetadata().getUid(), modified.getMetadata().getUid()));
    } catch (StatusException e) {
      // the pod still cannot be scheduled (a claim is missing or not its own)
      return QueueingHint.QUEUE_SKIP;
    }
    if (original != null && PodClaims.allocated(original) && !PodClaims.allocated(modified)) {
      // a deallocated claim frees devices for everyone
      return QueueingHint.QUEUE;
    }
    if (!usesClaim) {
      return QueueingHint.QUEUE_SKIP;
    }
    if (original == null) {
      return QueueingHint.QUEUE;
    }
    return Objects.equals(original.getStatus(), modified.getStatus()) ? QueueingHint.QUEUE_SKIP
        : QueueingHint.QUEUE;
  }

  static QueueingHint afterPodChange(PodClaims podClaims, Pod pod, Object newObj) {
    if (!(newObj instanceof Pod modified)) {
      throw new IllegalArgumentException("unexpected object in isSchedulableAfterPodChange");
    }
    if (!Objects.equals(pod.getMetadata().getUid(), modified.getMetadata().getUid())) {
      return QueueingHint.QUEUE_SKIP;
    }
    try {
      podClaims.of(modified);
      return QueueingHint.QUEUE;
    } catch (StatusException e) {
      return QueueingHint.QUEUE_SKIP;
    }
  }

  /** A new or changed class may help any pod with claims (PreFilter looks the classes up). */
  static QueueingHint isSchedulableAfterDeviceClassChange(Pod pod, Object oldObj,
      Object newObj) {
    if (!(newObj instanceof DeviceClass)) {
      throw new IllegalArgumentException("unexpected object in isSchedulableAfterClassChange");
    }
    return PodClaims.hasClaims(pod) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** New or changed devices may fit any pod with claims. */
  static QueueingHint isSchedulableAfterResourceSliceChange(Pod pod, Object oldObj,
      Object newObj) {
    if (!(newObj instanceof ResourceSlice)) {
      throw new IllegalArgumentException("unexpected object in isSchedulableAfterSliceChange");
    }
    if (oldObj instanceof ResourceSlice old && Objects.equals(old.getSpec(),
        ((ResourceSlice) newObj).getSpec())) {
      return QueueingHint.QUEUE_SKIP;
    }
    return PodClaims.hasClaims(pod) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }
}
