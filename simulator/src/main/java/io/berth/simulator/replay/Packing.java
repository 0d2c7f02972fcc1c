package io.berth.simulator.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Packing quality of a cluster state, computed from plain numbers (resource name to amount: cpu in
 * millicores, memory and storage in bytes, pods as a count, extended resources in their units).
 *
 * <ul>
 *   <li>Allocation ratio, per resource: the sum over nodes of what bound pods request, divided by
 *       the sum of the nodes' allocatable (0 when nothing is allocatable). Only resources some node
 *       has allocatable are reported.
 *   <li>Nodes in use: nodes with at least one (non-terminal) pod bound.
 *   <li>Fragmentation: take a reference pod, whose request of each resource is the lower median
 *       (element {@code (n-1)/2} of the sorted values; a pod without a request counts 0) of the
 *       requests of the pending pods, or, when nothing is pending, of the pods the replay placed
 *       (basis {@code "scheduled"}), or none (basis {@code "none"}; every share is then 0). A node
 *       cannot fit it when, for some resource the reference requests (more than 0), the node's free
 *       amount (allocatable − requested) is smaller, or when it has no free pod slot. Per resource
 *       the reference requests, fragmentation is the share of the cluster's free amount that lies
 *       on nodes that cannot fit it (0 when nothing of it is free). The headline figure is the mean
 *       of these shares over the resources of which something is free (0 when there are none): a
 *       resource used up everywhere strands nothing and must not dilute the others. Only resource fit counts: taints, affinity, ports and volumes are not looked at.
 * </ul>
 * Stateless; the records are immutable.
 */
final class Packing {
  /** The pod count resource. */
  static final String PODS = "pods";

  private Packing() {}

  /** One node: allocatable and requested amounts, and how many pods are bound to it. */
  record NodeUsage(String name, Map<String, Long> allocatable, Map<String, Long> requested,
      int pods) {}

  /** Requested over allocatable for one resource. */
  record Allocation(long requested, long allocatable, double ratio) {}

  /**
   * @param basis which pods the reference pod is the median of: {@code pending}, {@code scheduled}
   *     or {@code none}
   * @param reference the reference pod's requests
   * @param unfitNodes nodes that cannot fit the reference pod
   * @param shares per resource the reference requests, the share of free capacity on unfit nodes
   * @param figure the mean of {@code shares} over resources with free capacity (0 when none)
   */
  record Fragmentation(String basis, Map<String, Long> reference, int unfitNodes,
      Map<String, Double> shares, double figure) {}

  /** The whole figure set. */
  record Report(Map<String, Allocation> allocation, int nodes, int nodesInUse,
      Fragmentation fragmentation) {}

  static Report of(List<NodeUsage> nodes, List<Map<String, Long>> pending,
      List<Map<String, Long>> scheduled) {
    Map<String, Allocation> allocation = new TreeMap<>();
    TreeSet<String> resources = new TreeSet<>();
    nodes.forEach(n -> n.allocatable().forEach((r, v) -> {
      if (v > 0) {
        resources.add(r);
      }
    }));
    for (String r : resources) {
      long req = 0;
      long alloc = 0;
      for (NodeUsage n : nodes) {
        req += n.requested().getOrDefault(r, 0L);
        alloc += n.allocatable().getOrDefault(r, 0L);
      }
      allocation.put(r, new Allocation(req, alloc, alloc == 0 ? 0 : (double) req / alloc));
    }
    int inUse = (int) nodes.stream().filter(n -> n.pods() > 0).count();
    String basis = !pending.isEmpty() ? "pending" : !scheduled.isEmpty() ? "scheduled" : "none";
    Map<String, Long> reference = median(!pending.isEmpty() ? pending : scheduled);
    return new Report(allocation, nodes.size(), inUse, fragmentation(nodes, basis, reference));
  }

  /** Per resource, the lower median of the pods' requests (absent counts 0); zeros left out. */
  static Map<String, Long> median(List<Map<String, Long>> pods) {
    Map<String, Long> out = new TreeMap<>();
    if (pods.isEmpty()) {
      return out;
    }
    TreeSet<String> names = new TreeSet<>();
    pods.forEach(p -> names.addAll(p.keySet()));
    names.remove(PODS);
    for (String r : names) {
      List<Long> values = new ArrayList<>();
      pods.forEach(p -> values.add(p.getOrDefault(r, 0L)));
      values.sort(null);
      long m = values.get((values.size() - 1) / 2);
      if (m > 0) {
        out.put(r, m);
      }
    }
    return out;
  }

  static boolean fits(NodeUsage node, Map<String, Long> reference) {
    if (free(node, PODS) < 1) {
      return false;
    }
    for (Map.Entry<String, Long> e : reference.entrySet()) {
      if (free(node, e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static long free(NodeUsage node, String resource) {
    if (PODS.equals(resource) && !node.allocatable().containsKey(PODS)) {
      return Long.MAX_VALUE; // a node that states no pod limit
    }
    long f = node.allocatable().getOrDefault(resource, 0L)
        - (PODS.equals(resource) ? node.pods() : node.requested().getOrDefault(resource, 0L));
    return Math.max(0, f);
  }

  private static Fragmentation fragmentation(List<NodeUsage> nodes, String basis,
      Map<String, Long> reference) {
    if (reference.isEmpty()) {
      return new Fragmentation(basis, reference, 0, Map.of(), 0);
    }
    List<NodeUsage> unfit = nodes.stream().filter(n -> !fits(n, reference)).toList();
    Map<String, Double> shares = new TreeMap<>();
    double sum = 0;
    int counted = 0;
    for (String r : reference.keySet()) {
      long total = 0;
      long stranded = 0;
      for (NodeUsage n : nodes) {
        total += free(n, r);
      }
      for (NodeUsage n : unfit) {
        stranded += free(n, r);
      }
      shares.put(r, total == 0 ? 0 : (double) stranded / total);
      if (total > 0) {
        sum += (double) stranded / total;
        counted++;
      }
    }
    double figure = counted == 0 ? 0 : sum / counted;
    return new Fragmentation(basis, reference, unfit.size(), shares, figure);
  }
}
