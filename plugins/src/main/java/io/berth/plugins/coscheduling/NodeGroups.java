package io.berth.plugins.coscheduling;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Resource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which groups have members on each node, node by node: per group the number and summed requests of its members on
 * the node, recounted for a node only when its {@link NodeInfo#generation()} changed since the last look (every change
 * to a node's pods, the cache's, a group cycle's snapshot amendment or preemption's what-if copies, brings a new
 * generation, so an entry is never stale). Shared by every group of one plugin: a node is walked once per change,
 * whichever group looks next, so a group's first look at the cluster costs one map lookup per node, not a walk over
 * every pod of the cluster (before, each group kept its own counts and its first look walked every pod). Entries of
 * nodes no longer listed are dropped when the map grows past twice the nodes listed. Thread-safe: a concurrent map of
 * immutable entries (two threads may count one node at once; either answer is right).
 */
final class NodeGroups {
  /** One group's members on one node. Immutable (the Resource is never changed after counting). */
  record Members(Resource used, int count) { }

  /** The groups with members on a node at one generation. */
  private record OnNode(long generation, Map<GroupRef, Members> byGroup) { }

  private final ConcurrentHashMap<String, OnNode> byNode = new ConcurrentHashMap<>();

  /** {@code group}'s members on {@code node}, or null when it has none there. */
  Members of(NodeInfo node, GroupRef group) {
    return on(node).byGroup().get(group);
  }

  /** After a walk over {@code nodes}: forgets nodes not among them once the map holds twice as many. */
  void retainIfGrown(List<NodeInfo> nodes) {
    if (byNode.size() <= 2 * Math.max(16, nodes.size())) {
      return;
    }
    Set<String> listed = new HashSet<>();
    for (NodeInfo n : nodes) {
      listed.add(n.nodeName());
    }
    byNode.keySet().retainAll(listed);
  }

  /** The number of nodes remembered (for tests). */
  int remembered() {
    return byNode.size();
  }

  private OnNode on(NodeInfo node) {
    String name = node.nodeName();
    OnNode on = byNode.get(name);
    if (on != null && on.generation() == node.generation()) {
      return on;
    }
    Map<GroupRef, Resource> used = null;
    Map<GroupRef, Integer> counts = null;
    for (PodInfo p : node.pods()) {
      GroupRef g = GroupRef.of(p.pod()).orElse(null);
      if (g == null) {
        continue;
      }
      if (used == null) {
        used = new HashMap<>();
        counts = new HashMap<>();
      }
      used.computeIfAbsent(g, k -> new Resource()).add(p.requests());
      counts.merge(g, 1, Integer::sum);
    }
    Map<GroupRef, Members> byGroup = Map.of();
    if (used != null) {
      Map<GroupRef, Members> m = new HashMap<>();
      for (Map.Entry<GroupRef, Resource> e : used.entrySet()) {
        m.put(e.getKey(), new Members(e.getValue(), counts.get(e.getKey())));
      }
      byGroup = Map.copyOf(m);
    }
    on = new OnNode(node.generation(), byGroup);
    byNode.put(name, on);
    return on;
  }
}
