package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.Resource;
import java.util.List;

/**
 * Where one group's members sit on the cycle's nodes, read from the plugin's shared per-node counts
 * ({@link NodeGroups}, recounted for a node only when its generation changed): serves PreFilter's capacity check
 * ({@link GroupCapacity}) at one map lookup per node. Thread-safe: stateless over the thread-safe {@link NodeGroups}.
 */
final class GroupNodes {
  private final GroupRef group;
  private final NodeGroups nodeGroups;

  /** Over its own counts (for tests). */
  GroupNodes(GroupRef group) {
    this(group, new NodeGroups());
  }

  GroupNodes(GroupRef group, NodeGroups nodeGroups) {
    this.group = group;
    this.nodeGroups = nodeGroups;
  }

  GroupRef group() {
    return group;
  }

  /**
   * Per resource of {@code names}, the free capacity of {@code nodes} with the group's own members counted as free:
   * per node allocatable minus requested plus the members' requests, never below zero, summed ({@code pods}
   * counts pods).
   */
  long[] freeCapacity(List<NodeInfo> nodes, String[] names) {
    return freeCapacity(nodes, names, null);
  }

  /**
   * As {@link #freeCapacity(List, String[])}, but stops summing as soon as every resource {@code i} with
   * {@code needed[i] > 0} has at least {@code needed[i]} free (null: never stops early). So the answer is exact for
   * every resource only when some resource is short; once all are covered the sums are partial (each at least its
   * need), which is all a fit check asks. A group that fits, the common case, costs a few nodes, not the cluster.
   */
  long[] freeCapacity(List<NodeInfo> nodes, String[] names, long[] needed) {
    long[] free = new long[names.length];
    boolean[] pods = new boolean[names.length];
    // resources still short of their need; the walk ends when none is
    int uncovered = 0;
    for (int i = 0; i < names.length; i++) {
      pods[i] = names[i].equals(Resource.PODS);
      if (needed == null || needed[i] > 0) {
        uncovered++;
      }
    }
    if (needed != null && uncovered == 0) {
      return free;
    }
    for (NodeInfo n : nodes) {
      if (n.node().isEmpty()) {
        continue;
      }
      NodeGroups.Members on = nodeGroups.of(n, group);
      for (int i = 0; i < names.length; i++) {
        long used = pods[i] ? n.pods().size() : n.requested().get(names[i]);
        long own = on == null ? 0 : pods[i] ? on.count() : on.used().get(names[i]);
        long before = free[i];
        free[i] += Math.max(0, n.allocatable().get(names[i]) - used + own);
        if (needed != null && needed[i] > 0 && before < needed[i] && free[i] >= needed[i]) {
          uncovered--;
        }
      }
      if (needed != null && uncovered == 0) {
        break;
      }
    }
    nodeGroups.retainIfGrown(nodes);
    return free;
  }

  /** How many members are on {@code nodes} (assumed or bound). */
  int placed(List<NodeInfo> nodes) {
    int n = 0;
    for (NodeInfo node : nodes) {
      NodeGroups.Members on = nodeGroups.of(node, group);
      n += on == null ? 0 : on.count();
    }
    return n;
  }

  /** The number of nodes remembered (for tests). */
  int remembered() {
    return nodeGroups.remembered();
  }
}
