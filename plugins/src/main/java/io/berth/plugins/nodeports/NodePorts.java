package io.berth.plugins.nodeports;

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
import io.berth.framework.HostPortInfo;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * PreFilter/Filter plugin rejecting nodes whose host ports clash with the pod's, as
 * kube-scheduler's {@code NodePorts}: a requested hostIP/protocol/hostPort conflicts with a port
 * in use on the node, where 0.0.0.0 (or no IP) conflicts with every IP; such nodes are
 * Unschedulable ("node(s) didn't have free ports for the requested pod ports"), which preemption
 * may resolve. PreFilter skips pods without host ports. Stateless apart from the immutable cycle
 * state PreFilter writes; Filter is thread-safe.
 */
public final class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin {
  public static final String NAME = "NodePorts";
  /** Upstream's {@code ErrReason}. */
  public static final String ERR_REASON =
      "node(s) didn't have free ports for the requested pod ports";

  private static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
  private static final NodePorts INSTANCE = new NodePorts();

  /** The pod's wanted host ports. Immutable after construction. */
  private record WantedPorts(List<ContainerPort> ports) implements StateData {
    @Override
    public StateData copy() {
      // not affected by adding or removing other pods
      return this;
    }
  }

  private NodePorts() {}

  /** The factory registered for {@link #NAME}; NodePorts takes no arguments. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return INSTANCE;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility depends on the host ports the containers ask for. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.HOST_PORTS, PodSigners.hostPorts(pod)));
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    List<ContainerPort> ports = hostPorts(pod);
    if (ports.isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    state.write(PRE_FILTER_STATE_KEY, new WantedPorts(ports));
    return PreFilterResult.SUCCESS;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    Optional<WantedPorts> wanted = state.read(PRE_FILTER_STATE_KEY, WantedPorts.class);
    if (wanted.isEmpty()) {
      return Status.error("reading \"" + PRE_FILTER_STATE_KEY + "\" from cycleState: not found");
    }
    return fitsPorts(wanted.get().ports(), nodeInfo.usedPorts()) ? Status.SUCCESS
        : Status.unschedulable(ERR_REASON);
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // Container ports are immutable, so pod updates never matter; a new node may have them free
    // (with queueing hints no preCheck runs, so Add alone suffices).
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD, ActionType.DELETE),
            NodePorts::isSchedulableAfterPodDeleted),
        ClusterEventWithHint.always(new ClusterEvent(EventResource.NODE, ActionType.ADD)));
  }

  /** Whether none of the pod's host ports conflict with those in use on the node. */
  public static boolean fits(Pod pod, NodeInfo nodeInfo) {
    return fitsPorts(hostPorts(pod), nodeInfo.usedPorts());
  }

  /**
   * A deleted pod helps only if it was on (or nominated to) a node and held a port that the
   * rejected pod wants.
   */
  static QueueingHint isSchedulableAfterPodDeleted(Pod pod, Object oldObj, Object newObj) {
    if (!(oldObj instanceof Pod deleted)) {
      return QueueingHint.QUEUE;
    }
    String nodeName = deleted.getSpec() == null ? null : deleted.getSpec().getNodeName();
    String nominated = deleted.getStatus() == null ? null
        : deleted.getStatus().getNominatedNodeName();
    if (isEmpty(nodeName) && isEmpty(nominated)) {
      return QueueingHint.QUEUE_SKIP;
    }
    List<ContainerPort> freed = hostPorts(deleted);
    if (freed.isEmpty()) {
      return QueueingHint.QUEUE_SKIP;
    }
    HostPortInfo inUse = new HostPortInfo();
    for (ContainerPort p : freed) {
      inUse.add(p.getHostIP(), p.getProtocol(), p.getHostPort());
    }
    return fitsPorts(hostPorts(pod), inUse) ? QueueingHint.QUEUE_SKIP : QueueingHint.QUEUE;
  }

  /** The ports of the pod's (non-init) containers that ask for a host port. */
  static List<ContainerPort> hostPorts(Pod pod) {
    List<ContainerPort> out = new ArrayList<>();
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return out;
    }
    for (Container c : pod.getSpec().getContainers()) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (p.getHostPort() != null && p.getHostPort() > 0) {
          out.add(p);
        }
      }
    }
    return List.copyOf(out);
  }

  private static boolean fitsPorts(List<ContainerPort> wanted, HostPortInfo inUse) {
    for (ContainerPort p : wanted) {
      if (inUse.conflicts(p.getHostIP(), p.getProtocol(), p.getHostPort())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }
}
