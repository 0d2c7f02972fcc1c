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
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Long> e : required.entrySet()) {
      long need = e.getValue();
      if (need <= 0) {
        continue;
      }
      long free = 0;
      for (NodeInfo n : nodes) {
        if (n.node().isEmpty()) {
          continue;
        }
        free += Math.max(0, freeOn(n, e.getKey(), group));
      }
      if (need > free) {
        out.add(e.getKey() + ": needs " + format(e.getKey(), need) + ", " + format(e.getKey(), free)
            + " free, short by " + format(e.getKey(), need - free));
      }
    }
    return out;
  }

  private static long freeOn(NodeInfo n, String resource, PodGroup group) {
    long allocatable = n.allocatable().get(resource);
    long used;
    long groupUsed = 0;
    if (resource.equals(Resource.PODS)) {
      used = n.pods().size();
      for (PodInfo p : n.pods()) {
        groupUsed += Coscheduling.inGroup(p.pod(), group) ? 1 : 0;
      }
    } else {
      used = n.requested().get(resource);
      for (PodInfo p : n.pods()) {
        if (Coscheduling.inGroup(p.pod(), group)) {
          groupUsed += io.berth.framework.PodRequests.of(p.pod()).get(resource);
        }
      }
    }
    return allocatable - used + groupUsed;
  }

  /** cpu in cores (milli when fractional), memory-like resources in bytes, others as counts. */
  static String format(String resource, long amount) {
    if (resource.equals(Resource.CPU)) {
      return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
    }
    return Long.toString(amount);
  }
}
