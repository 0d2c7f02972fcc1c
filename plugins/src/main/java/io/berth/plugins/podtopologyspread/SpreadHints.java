package io.berth.plugins.podtopologyspread;

import io.berth.framework.QueueingHint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queueing hints of kube-scheduler v1.32's PodTopologySpread: which pod and node changes may
 * make a pod this plugin rejected (for its DoNotSchedule constraints) schedulable. An event the
 * hint cannot interpret (wrong object type, invalid constraints) queues the pod, as upstream
 * does on error. Immutable; safe to call from the scheduling queue under its lock.
 */
final class SpreadHints {
  private static final Logger LOG = LoggerFactory.getLogger(SpreadHints.class);

  private final ConstraintSource source;

  SpreadHints(ConstraintSource source) {
    this.source = source;
  }

  /**
   * A pod was added, updated or deleted. Only assigned pods in the pod's namespace (or the pod
   * itself) matter; then: added or deleted pods matching a selector; updates that gain or lose a
   * selector match; or a new toleration on the pod itself when a constraint honors taints.
   */
  QueueingHint afterPodChange(Pod pod, Object oldObj, Object newObj) {
    if ((oldObj != null && !(oldObj instanceof Pod))
        || (newObj != null && !(newObj instanceof Pod))) {
      return QueueingHint.QUEUE;
    }
    Pod original = (Pod) oldObj;
    Pod modified = (Pod) newObj;
    if ((modified != null && !involved(modified, pod))
        || (original != null && !involved(original, pod))) {
      return QueueingHint.QUEUE_SKIP;
    }
    List<SpreadConstraint> constraints;
    try {
      constraints = source.forPod(pod, ConstraintCompiler.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      LOG.debug("queueing pod {} after a pod event: {}", pod.getMetadata().getName(),
          e.getMessage());
      return QueueingHint.QUEUE;
    }
    if (original != null && modified != null) {
      if (Objects.equals(uid(pod), uid(modified))
          && !tolerations(original).equals(tolerations(modified))
          && constraints.stream().anyMatch(SpreadConstraint::honorNodeTaints)) {
        return QueueingHint.QUEUE;
      }
      Map<String, String> before = labels(original);
      Map<String, String> after = labels(modified);
      if (before.equals(after)) {
        return QueueingHint.QUEUE_SKIP;
      }
      for (SpreadConstraint c : constraints) {
        if (c.selects(before) != c.selects(after)) {
          return QueueingHint.QUEUE;
        }
      }
      return QueueingHint.QUEUE_SKIP;
    }
    Pod changed = modified != null ? modified : original;
    return anySelects(constraints, labels(changed)) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /**
   * A node was added, deleted, or had its labels or taints updated. Queue when an added or
   * deleted node holds every topology key; for updates, when the node starts or stops holding
   * them all, or holds them all and a topology value or its taints changed.
   */
  QueueingHint afterNodeChange(Pod pod, Object oldObj, Object newObj) {
    if ((oldObj != null && !(oldObj instanceof Node))
        || (newObj != null && !(newObj instanceof Node))) {
      return QueueingHint.QUEUE;
    }
    Node original = (Node) oldObj;
    Node modified = (Node) newObj;
    List<SpreadConstraint> constraints;
    try {
      constraints = source.forPod(pod, ConstraintCompiler.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      LOG.debug("queueing pod {} after a node event: {}", pod.getMetadata().getName(),
          e.getMessage());
      return QueueingHint.QUEUE;
    }
    boolean originalMatches = original != null
        && SpreadConstraint.hasAllTopologyKeys(SpreadConstraint.labelsOf(original), constraints);
    boolean modifiedMatches = modified != null
        && SpreadConstraint.hasAllTopologyKeys(SpreadConstraint.labelsOf(modified), constraints);
    if (original != null && modified != null) {
      if (originalMatches != modifiedMatches) {
        return QueueingHint.QUEUE;
      }
      if (modifiedMatches && (topologyValuesChanged(original, modified, constraints)
          || !taints(original).equals(taints(modified)))) {
        return QueueingHint.QUEUE;
      }
      return QueueingHint.QUEUE_SKIP;
    }
    boolean matches = modified != null ? modifiedMatches : originalMatches;
    return matches ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** Whether {@code incoming} can change {@code podWithSpreading}'s counts. */
  private static boolean involved(Pod incoming, Pod podWithSpreading) {
    if (Objects.equals(uid(incoming), uid(podWithSpreading))) {
      return true;
    }
    String nodeName = incoming.getSpec() == null ? null : incoming.getSpec().getNodeName();
    return nodeName != null && !nodeName.isEmpty()
        && Objects.equals(incoming.getMetadata().getNamespace(),
        podWithSpreading.getMetadata().getNamespace());
  }

  private static boolean anySelects(List<SpreadConstraint> constraints,
      Map<String, String> labels) {
    for (SpreadConstraint c : constraints) {
      if (c.selects(labels)) {
        return true;
      }
    }
    return false;
  }

  private static boolean topologyValuesChanged(Node original, Node modified,
      List<SpreadConstraint> constraints) {
    Map<String, String> before = SpreadConstraint.labelsOf(original);
    Map<String, String> after = SpreadConstraint.labelsOf(modified);
    for (SpreadConstraint c : constraints) {
      if (!Objects.equals(before.get(c.topologyKey()), after.get(c.topologyKey()))) {
        return true;
      }
    }
    return false;
  }

  // Upstream compares with semantic equality, where a nil and an empty list or map are equal.
  private static String uid(Pod pod) {
    String uid = pod.getMetadata().getUid();
    return uid == null ? "" : uid;
  }

  private static Map<String, String> labels(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static List<?> tolerations(Pod pod) {
    List<?> list = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    return list == null ? List.of() : list;
  }

  private static List<?> taints(Node node) {
    List<?> list = node.getSpec() == null ? null : node.getSpec().getTaints();
    return list == null ? List.of() : list;
  }
}
