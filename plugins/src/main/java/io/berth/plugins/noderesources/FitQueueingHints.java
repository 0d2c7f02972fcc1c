package io.berth.plugins.noderesources;

import io.berth.framework.PodRequests;
import io.berth.framework.QueueingHint;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * NodeResourcesFit's queueing hints (upstream's {@code isSchedulableAfterPodEvent} and
 * {@code isSchedulableAfterNodeChange}): whether a pod the plugin rejected may now fit after a pod
 * was deleted or scaled down, or a node was added or had its allocatable changed. Stateless and
 * thread-safe; objects of an unexpected type, or with malformed quantities, throw, which the queue
 * treats as QUEUE.
 */
final class FitQueueingHints {
  private FitQueueingHints() {}

  /** A deleted assigned pod frees resources; a scale-down helps if it shrinks what we request. */
  static QueueingHint afterPodEvent(Pod pod, Object oldObj, Object newObj) {
    Pod original = cast(oldObj, Pod.class);
    Pod modified = cast(newObj, Pod.class);
    if (modified == null) {
      if (original == null || nodeName(original).isEmpty()) {
        return QueueingHint.QUEUE_SKIP; // an unscheduled pod held no node resources
      }
      return QueueingHint.QUEUE;
    }
    return isSchedulableAfterScaleDown(pod, original, modified)
        ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  private static boolean isSchedulableAfterScaleDown(Pod target, Pod original, Pod modified) {
    if (Objects.equals(uid(modified), uid(target))) {
      return true; // the rejected pod itself asks for less now
    }
    if (nodeName(modified).isEmpty() || original == null) {
      return false;
    }
    Resource before = PodRequests.of(original);
    Resource after = PodRequests.of(modified);
    Resource wanted = PodRequests.of(target);
    if (wanted.milliCpu() > 0 && before.milliCpu() > after.milliCpu()) {
      return true;
    }
    if (wanted.memory() > 0 && before.memory() > after.memory()) {
      return true;
    }
    if (wanted.ephemeralStorage() > 0 && before.ephemeralStorage() > after.ephemeralStorage()) {
      return true;
    }
    for (Map.Entry<String, Long> e : wanted.scalarResources().entrySet()) {
      String name = e.getKey();
      if (e.getValue() != 0 && ResourceNames.isScalar(name)
          && before.scalar(name) > after.scalar(name)) {
        return true;
      }
    }
    return false;
  }

  /** Queue when the (new or changed) node could hold the pod and gained something it needs. */
  static QueueingHint afterNodeChange(Pod pod, Object oldObj, Object newObj) {
    Node original = cast(oldObj, Node.class);
    Node modified = cast(newObj, Node.class);
    if (modified == null) {
      return QueueingHint.QUEUE_SKIP;
    }
    Resource podRequest = PodRequests.of(pod);
    Resource modifiedAllocatable = ResourceFit.allocatableOf(modified);
    List<String> scalars = ResourceFit.scalarsToCheck(podRequest, Set.of(), Set.of());
    if (!ResourceFit.insufficient(podRequest, scalars, 0, new Resource(), modifiedAllocatable)
        .isEmpty()) {
      return QueueingHint.QUEUE_SKIP; // the pod would not fit even on the empty node
    }
    if (original == null) {
      return QueueingHint.QUEUE;
    }
    return anyRequestedResourceIncreased(podRequest, ResourceFit.allocatableOf(original),
        modifiedAllocatable) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** Whether the pod limit, or the allocatable amount of a resource the pod requests, grew. */
  static boolean anyRequestedResourceIncreased(Resource podRequest, Resource before,
      Resource after) {
    if (after.allowedPodNumber() > before.allowedPodNumber()) {
      return true;
    }
    if ((podRequest.milliCpu() > 0 && after.milliCpu() > before.milliCpu())
        || (podRequest.memory() > 0 && after.memory() > before.memory())
        || (podRequest.ephemeralStorage() > 0
            && after.ephemeralStorage() > before.ephemeralStorage())) {
      return true;
    }
    for (Map.Entry<String, Long> e : podRequest.scalarResources().entrySet()) {
      if (e.getValue() != 0 && after.scalar(e.getKey()) > before.scalar(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  private static <T> T cast(Object obj, Class<T> type) {
    if (obj == null) {
      return null;
    }
    if (!type.isInstance(obj)) {
      throw new IllegalArgumentException("expected a " + type.getSimpleName() + ", got "
          + obj.getClass().getName());
    }
    return type.cast(obj);
  }

  private static String nodeName(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeName() == null ? ""
        : pod.getSpec().getNodeName();
  }

  private static String uid(Pod pod) {
    return pod.getMetadata() == null ? null : pod.getMetadata().getUid();
  }
}
