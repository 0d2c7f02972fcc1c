package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Resource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one group's members sit on the cycle's nodes, node by node: the number and summed requests of the members
 * on each node, recounted for a node only when its {@link NodeInfo#generation()} changed since the last look. Every
 * change to a node's pods (the cache's, a group cycle's snapshot amendment, preemption's what-if copies) brings a
 * new generation, so an entry is never stale; most calls cost one map lookup per node instead of a walk over every
 * pod of the cluster. Serves PreFilter's capacity check ({@link GroupCapacity}). Thread-safe: guarded by
 * {@code this}.
 */
final class GroupNodes {
  /** The group's members on one node at one generation; {@code used} is null when there are none. */
  private record OnNode(long generation, Resource used, int count) { }

  private final GroupRef group;
  // guarded by this: node name -> the group's members on that node, as of the generation recorded
  private final Map<String, OnNode> byNode = new HashMap<>();

  GroupNodes(GroupRef group) {
    this.group = group;
  }

  GroupRef group() {
    return group;
  }

  /**
   * Per resource of {@code names}, the free capacity of {@code nodes} with the group's own members counted as free:
   * per node allocatable minus requested plus the members' requests, never below zero, summed ({@code pods}
   * counts pods).
   */
  synchronized long[] freeCapacity(List<NodeInfo> nodes, String[] names) {
    long[] free = new long[names.length];
    for (NodeInfo n : nodes) {
      if (n.node().isEmpty()) {
        continue;
      }
      OnNode on = on(n);
      for (int i = 0; i < names.length; i++) {
        boolean pods = names[i].equals(Resource.PODS);
        long used = pods ? n.pods().size() : n.requested().get(names[i]);
        long own = on.used() == null ? 0 : pods ? on.count() : on.used().get(names[i]);
        free[i] += Math.max(0, n.allocatable().get(names[i]) - used + own);
      }
    }
    return free;
  }

  /** How many members are on {@code nodes} (assumed or bound). */
  synchronized int placed(List<NodeInfo> nodes) {
    int n = 0;
    for (NodeInfo node : nodes) {
      n += on(node).count();
    }
    return n;
  }

  /** The number of nodes remembered (for tests). */
  synchronized int remembered() {
    return byNode.size();
  }

  // guarded by this
  private OnNode on(NodeInfo node) {
    String name = node.nodeName();
    OnNode on = byNode.get(name);
    if (on != null && on.generation() == node.generation()) {
      return on;
    }
    Resource used = null;
    int count = 0;
    for (PodInfo p : node.pods()) {
      if (GroupRef.of(p.pod()).map(group::equals).orElse(false)) {
        used = used == null ? new Resource() : used;
        used.add(p.requests());
        count++;
      }
    }
    on = new OnNode(node.generation(), used, count);
    byNode.put(name, on);
    return on;
  }
}
