package io.berth.plugins.nodeunschedulable;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.framework.Taints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Filter plugin excluding cordoned nodes, as kube-scheduler's {@code NodeUnschedulable}: a node
 * with {@code spec.unschedulable} is UnschedulableAndUnresolvable ("node(s) were unschedulable")
 * unless the pod tolerates the {@code node.kubernetes.io/unschedulable:NoSchedule} taint.
 * Stateless and thread-safe; Filter runs on many threads at once, hints under the queue's lock.
 */
public final class NodeUnschedulable implements FilterPlugin, EnqueueExtensions, SignPlugin {
  public static final String NAME = "NodeUnschedulable";
  /** Upstream's {@code ErrReasonUnschedulable}. */
  public static final String ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable";
  /** Upstream's {@code ErrReasonUnknownCondition} (kept for parity; not returned by Filter). */
  public static final String ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions";
  /** The taint a cordoned node is treated as having ({@code v1.TaintNodeUnschedulable}). */
  public static final String TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

  private static final Taint UNSCHEDULABLE_TAINT = new TaintBuilder()
      .withKey(TAINT_NODE_UNSCHEDULABLE).withEffect(Taints.NO_SCHEDULE).build();
  private static final NodeUnschedulable INSTANCE = new NodeUnschedulable();

  private NodeUnschedulable() {}

  /** The factory registered for {@link #NAME}; NodeUnschedulable takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility depends on whether the pod tolerates the unschedulable taint. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.TOLERATIONS, PodSigners.tolerations(pod)));
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // The scheduler reports a change of spec.unschedulable as UpdateNodeTaint, as upstream does.
    return List.of(
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
            NodeUnschedulable::isSchedulableAfterNodeChange),
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
            NodeUnschedulable::isSchedulableAfterPodTolerationChange));
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    // NodeInfo keeps spec.unschedulable: reading it through the Node was a cache miss per node
    if (!nodeInfo.unschedulable() || toleratesUnschedulable(pod)) {
      return Status.SUCCESS;
    }
    return Status.unresolvable(ERR_REASON_UNSCHEDULABLE);
  }

  /** Queue when a node is added schedulable or an update uncordons it. */
  static QueueingHint isSchedulableAfterNodeChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Node modified) || (oldObj != null && !(oldObj instanceof Node))) {
      return QueueingHint.QUEUE;
    }
    Node original = (Node) oldObj;
    boolean uncordoned = original != null && isUnschedulable(original)
        && !isUnschedulable(modified);
    boolean addedSchedulable = original == null && !isUnschedulable(modified);
    return uncordoned || addedSchedulable ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /**
   * Queue when the rejected pod itself now tolerates the unschedulable taint. Tolerations can only
   * be added, and a pod that already tolerated it was not rejected here, so the old pod need not
   * be looked at.
   */
  static QueueingHint isSchedulableAfterPodTolerationChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Pod modified)) {
      return QueueingHint.QUEUE;
    }
    if (!Objects.equals(pod.getMetadata().getUid(), modified.getMetadata().getUid())) {
      return QueueingHint.QUEUE_SKIP;
    }
    return toleratesUnschedulable(modified) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  private static boolean isUnschedulable(Node node) {
    return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  private static boolean toleratesUnschedulable(Pod pod) {
    List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
    return Taints.toleratedBy(UNSCHEDULABLE_TAINT, tolerations);
  }
}
