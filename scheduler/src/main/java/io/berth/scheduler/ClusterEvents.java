package io.berth.scheduler;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.berth.framework.PodInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Classifies object updates into the fine-grained cluster events queueing hints match on, as
 * upstream's {@code nodeSchedulingPropertiesChange} and {@code PodSchedulingPropertiesChange}.
 * Stateless and thread-safe.
 */
final class ClusterEvents {
  static final ClusterEvent NODE_ADD = new ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd");
  static final ClusterEvent ASSIGNED_POD_ADD =
      new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD, "AssignedPodAdd");

  private ClusterEvents() {}

  /** The node events an update represents; empty when nothing scheduling-relevant changed. */
  static List<ClusterEvent> nodeUpdate(Node oldNode, Node newNode) {
    List<ClusterEvent> events = new ArrayList<>(2);
    if (!Objects.equals(alloc(oldNode), alloc(newNode))) {
      events.add(node(ActionType.UPDATE_NODE_ALLOCATABLE, "NodeAllocatableChange"));
    }
    if (!Objects.equals(oldNode.getMetadata().getLabels(), newNode.getMetadata().getLabels())) {
      events.add(node(ActionType.UPDATE_NODE_LABEL, "NodeLabelChange"));
    }
    if (!Objects.equals(taints(oldNode), taints(newNode))
        || !Objects.equals(unschedulable(oldNode), unschedulable(newNode))) {
      events.add(node(ActionType.UPDATE_NODE_TAINT, "NodeTaintChange"));
    }
    if (!Objects.equals(conditions(oldNode), conditions(newNode))) {
      events.add(node(ActionType.UPDATE_NODE_CONDITION, "NodeConditionChange"));
    }
    if (!Objects.equals(oldNode.getMetadata().getAnnotations(),
        newNode.getMetadata().getAnnotations())) {
      events.add(node(ActionType.UPDATE_NODE_ANNOTATION, "NodeAnnotationChange"));
    }
    return events;
  }

  /** The event an assigned pod's update represents. */
  static ClusterEvent assignedPodUpdate(Pod oldPod, Pod newPod) {
    long actions = 0;
    if (!Objects.equals(oldPod.getMetadata().getLabels(), newPod.getMetadata().getLabels())) {
      actions |= ActionType.UPDATE_POD_LABEL;
    }
    if (scaledDown(oldPod, newPod)) {
      actions |= ActionType.UPDATE_POD_SCALE_DOWN;
    }
    if (actions == 0) {
      actions = ActionType.UPDATE_OTHER;
    }
    return new ClusterEvent(EventResource.ASSIGNED_POD, actions);
  }

  private static boolean scaledDown(Pod oldPod, Pod newPod) {
    var oldReq = PodInfo.of(oldPod).requests();
    var newReq = PodInfo.of(newPod).requests();
    return newReq.milliCpu() < oldReq.milliCpu() || newReq.memory() < oldReq.memory()
        || newReq.ephemeralStorage() < oldReq.ephemeralStorage();
  }

  private static ClusterEvent node(long action, String label) {
    return new ClusterEvent(EventResource.NODE, action, label);
  }

  private static Object alloc(Node n) {
    return n.getStatus() == null ? null : n.getStatus().getAllocatable();
  }

  private static Object taints(Node n) {
    return n.getSpec() == null ? null : n.getSpec().getTaints();
  }

  private static Object unschedulable(Node n) {
    return n.getSpec() == null ? null : n.getSpec().getUnschedulable();
  }

  private static Map<String, String> conditions(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return Map.of();
    }
    Map<String, String> out = new java.util.TreeMap<>();
    for (NodeCondition c : n.getStatus().getConditions()) {
      out.put(c.getType(), c.getStatus());
    }
    return out;
  }
}
