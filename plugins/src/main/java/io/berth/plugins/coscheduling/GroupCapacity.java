package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether the cluster's free capacity can hold what a PodGroup needs, as scheduler-plugins'
 * {@code CheckClusterResource}: per node, allocatable minus what pods outside the group request (the group's own
 * placed or assumed members count as free), never below zero, summed over the nodes. A necessary condition only:
 * the group may still fail Filter on fragmented nodes. Stateless and thread-safe.
 */
final class GroupCapacity {

  private GroupCapacity() {
  }

  /**
   * The shortfalls of {@code required} against the free capacity of {@code nodes}, one entry per short resource
   * ("cpu: needs 8, 6 free, short by 2"), in the order of {@code required}; empty when it fits.
   */
  static List<String> shortfalls(Map<String, Long> required, List<NodeInfo> nodes, PodGroup group) {
    String[] names = required.keySet().toArray(String[]::new);
    long[] free = new long[names.length];
    long[] groupUsed = new long[names.length];
    for (NodeInfo n : nodes) {
      if (n.node().isEmpty()) {
        continue;
      }
      // one pass over the node's pods for every resource: the group's own members count as free
      java.util.Arrays.fill(groupUsed, 0);
      for (PodInfo p : n.pods()) {
        if (Coscheduling.inGroup(p.pod(), group)) {
          for (int i = 0; i < names.length; i++) {
            groupUsed[i] += names[i].equals(Resource.PODS) ? 1 : p.requests().get(names[i]);
          }
        }
      }
      for (int i = 0; i < names.length; i++) {
        long used = names[i].equals(Resource.PODS) ? n.pods().size() : n.requested().get(names[i]);
        free[i] += Math.max(0, n.allocatable().get(names[i]) - used + groupUsed[i]);
      }
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      long need = required.get(names[i]);
      if (need > 0 && need > free[i]) {
        out.add(names[i] + ": needs " + format(names[i], need) + ", " + format(names[i], free[i])
            + " free, short by " + format(names[i], need - free[i]));
      }
    }
    return out;
  }

  /** cpu in cores (milli when fractional), memory-like resources in bytes, others as counts. */
  static String format(String resource, long amount) {
    if (resource.equals(Resource.CPU)) {
      return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
    }
    return Long.toString(amount);
  }
}
