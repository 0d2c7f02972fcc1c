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
    long[] free = new long[names.length];
    boolean[] pods = new boolean[names.length];
    for (int i = 0; i < names.length; i++) {
      pods[i] = names[i].equals(Resource.PODS);
    }
    for (NodeInfo n : nodes) {
      if (n.node().isEmpty()) {
        continue;
      }
      NodeGroups.Members on = nodeGroups.of(n, group);
      for (int i = 0; i < names.length; i++) {
        long used = pods[i] ? n.pods().size() : n.requested().get(names[i]);
        long own = on == null ? 0 : pods[i] ? on.count() : on.used().get(names[i]);
        free[i] += Math.max(0, n.allocatable().get(names[i]) - used + own);
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
