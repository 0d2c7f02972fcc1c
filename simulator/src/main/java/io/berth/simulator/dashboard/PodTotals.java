package io.berth.simulator.dashboard;

import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What {@code /api/cluster} counts over all pods, kept up to date from the pod informer's events
 * instead of walking every cached pod (and parsing its requests) on each poll: per node the pods on
 * it and their summed cpu and memory requests, the number of pods and of Running ones, the pending
 * pods in namespace/name order, and per PodGroup its members, scheduled and running ones. Each
 * event replaces the pod's previous contribution with its new one, so a poll costs a copy of the
 * per-node table, not a pass over the pods. The figures follow the informer's handler, so they may
 * trail the lister by the events still in the handler's buffer.
 *
 * <p>Thread-safe: every field is guarded by {@code this}; the informer's handler thread writes, the
 * dashboard's request threads read copies through {@link #view(int)}.
 */
final class PodTotals implements ResourceEventHandler<Pod> {

  /** One node's pods (bound, not terminal) and their summed requests. */
  record NodeTotal(int pods, long cpuMillis, long memoryBytes) {
    static final NodeTotal EMPTY = new NodeTotal(0, 0, 0);
  }

  /** One PodGroup's non-terminal members, those on a node and those Running. */
  record GroupTotal(int members, int scheduled, int running) {
    static final GroupTotal EMPTY = new GroupTotal(0, 0, 0);
  }

  /**
   * A consistent copy of the totals.
   *
   * @param pods every pod
   * @param running pods in phase Running
   * @param boundPods non-terminal pods on a node
   * @param pendingCount non-terminal pods on no node
   * @param pending the first of those in namespace/name order, as {namespace, name}
   * @param nodes per node name
   * @param groups per "namespace/name" of a PodGroup
   */
  record View(int pods, int running, int boundPods, int pendingCount, List<String[]> pending,
      Map<String, NodeTotal> nodes, Map<String, GroupTotal> groups) {
  }

  /** What one pod adds to the totals. */
  private record Contribution(String node, long cpu, long memory, boolean running, boolean terminal,
      String group) {
    static Contribution of(Pod p) {
      boolean terminal = DashboardData.terminal(p);
      String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
      boolean bound = node != null && !terminal;
      String groupName = p.getMetadata().getLabels() == null ? null
          : p.getMetadata().getLabels().get(DashboardData.POD_GROUP_LABEL);
      return new Contribution(node, bound ? Resources.cpuMillis(p) : 0, bound ? Resources.memoryBytes(p) : 0,
          p.getStatus() != null && "Running".equals(p.getStatus().getPhase()), terminal,
          groupName == null ? null : p.getMetadata().getNamespace() + "/" + groupName);
    }

    boolean bound() {
      return node != null && !terminal;
    }
  }

  private static final Comparator<String[]> BY_NAMESPACE_AND_NAME = Comparator.<String[], String>comparing(
      k -> k[0]).thenComparing(k -> k[1]);

  // all guarded by this
  private final Map<String, Contribution> byPod = new HashMap<>();
  private final Map<String, NodeTotal> byNode = new HashMap<>();
  private final Map<String, GroupTotal> byGroup = new HashMap<>();
  private final TreeSet<String[]> pending = new TreeSet<>(BY_NAMESPACE_AND_NAME);
  private int running;
  private int bound;

  @Override
  public void onAdd(Pod obj, boolean isInInitialList) {
    put(obj);
  }

  @Override
  public void onUpdate(Pod oldObj, Pod newObj) {
    put(newObj);
  }

  @Override
  public void onDelete(Pod obj, boolean finalStateUnknown) {
    String key = key(obj);
    synchronized (this) {
      Contribution old = byPod.remove(key);
      if (old != null) {
        apply(obj, old, -1);
      }
    }
  }

  private void put(Pod p) {
    Contribution now = Contribution.of(p);
    String key = key(p);
    synchronized (this) {
      Contribution old = byPod.put(key, now);
      if (old != null) {
        apply(p, old, -1);
      }
      apply(p, now, 1);
    }
  }

  /** Adds ({@code sign} 1) or takes away (-1) one contribution; called holding this. */
  private void apply(Pod p, Contribution c, int sign) {
    if (c.running()) {
      running += sign;
    }
    if (c.bound()) {
      bound += sign;
      NodeTotal t = byNode.getOrDefault(c.node(), NodeTotal.EMPTY);
      NodeTotal n = new NodeTotal(t.pods() + sign, t.cpuMillis() + sign * c.cpu(),
          t.memoryBytes() + sign * c.memory());
      if (n.pods() == 0) {
        byNode.remove(c.node());
      } else {
        byNode.put(c.node(), n);
      }
    } else if (!c.terminal()) {
      String[] k = {p.getMetadata().getNamespace(), p.getMetadata().getName()};
      if (sign > 0) {
        pending.add(k);
      } else {
        pending.remove(k);
      }
    }
    if (c.group() != null && !c.terminal()) {
      GroupTotal g = byGroup.getOrDefault(c.group(), GroupTotal.EMPTY);
      GroupTotal n = new GroupTotal(g.members() + sign, g.scheduled() + (c.bound() ? sign : 0),
          g.running() + (c.running() ? sign : 0));
      if (n.members() == 0) {
        byGroup.remove(c.group());
      } else {
        byGroup.put(c.group(), n);
      }
    }
  }

  /** A copy of the totals, listing at most {@code pendingLimit} pending pods. */
  synchronized View view(int pendingLimit) {
    List<String[]> first = new ArrayList<>(Math.min(pendingLimit, pending.size()));
    for (String[] k : pending) {
      if (first.size() == pendingLimit) {
        break;
      }
      first.add(k);
    }
    return new View(byPod.size(), running, bound, pending.size(), first, Map.copyOf(byNode),
        Map.copyOf(byGroup));
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }
}
