package io.berth.plugins.nodename;

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
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * Filter plugin honouring {@code spec.nodeName}, as kube-scheduler's {@code NodeName}: a pod that
 * names a node fits only that node (UnschedulableAndUnresolvable otherwise). Only a new node can
 * change the verdict, so it registers Node/Add. Stateless and thread-safe; Filter runs on many
 * threads at once.
 */
public final class NodeName implements FilterPlugin, EnqueueExtensions, SignPlugin {
  public static final String NAME = "NodeName";
  /** Upstream's {@code ErrReason}. */
  public static final String ERR_REASON = "node(s) didn't match the requested node name";

  private static final NodeName INSTANCE = new NodeName();

  private NodeName() {}

  /** The factory registered for {@link #NAME}; NodeName takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility depends on {@code spec.nodeName} only. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.NODE_NAME, PodSigners.nodeName(pod)));
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // With queueing hints there is no preCheck, so an update event cannot be the first sight of
    // a node: Add alone is enough, and every such event is worth a retry.
    return List.of(
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE, ActionType.ADD)));
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    return fits(pod, nodeInfo) ? Status.SUCCESS : Status.unresolvable(ERR_REASON);
  }

  /** Whether the pod names no node or names this one. */
  public static boolean fits(Pod pod, NodeInfo nodeInfo) {
    String wanted = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return wanted == null || wanted.isEmpty()
        || wanted.equals(nodeInfo.getNode().getMetadata().getName());
  }
}
