package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Whether the cluster's free capacity can hold what a PodGroup needs, as scheduler-plugins'
 * {@code CheckClusterResource}: per node, allocatable minus what pods outside the group request (the group's own
 * placed or assumed members count as free), never below zero, summed over the nodes. A necessary condition only:
 * the group may still fail Filter on fragmented nodes. Where the members sit comes from the group's
 * {@link GroupNodes}, so a group cycle's members (each placed member counts as free, so the answer is the same for
 * every member of the cycle) pay one lookup per node, not a walk over every pod; and the walk ends at the first
 * nodes whose free capacity covers every requested resource (the sums of a resource that is short, the only ones a
 * message shows, are always over every node). Stateless and thread-safe.
 */
final class GroupCapacity {

  private GroupCapacity() {
  }

  /**
   * The shortfalls of {@code required} against the free capacity of {@code nodes}, one entry per short resource
   * ("cpu: needs 8, 6 free, short by 2"), in the order of {@code required}; empty when it fits.
   */
  static List<String> shortfalls(Map<String, Long> required, List<NodeInfo> nodes, GroupNodes group) {
    String[] names = required.keySet().toArray(String[]::new);
    long[] needed = new long[names.length];
    for (int i = 0; i < names.length; i++) {
      needed[i] = required.get(names[i]);
    }
    // stops at the first nodes that cover every need: the sums are exact whenever a resource is short
    long[] free = group.freeCapacity(nodes, names, needed);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      long need = needed[i];
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
