package io.berth.plugins.topologyplacement;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodRequests;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which single domain of a topology key can hold a group, by per-node bin-packing of the members' requests.
 *
 * <p>The domains are the values of the node label {@code key} (nodes without it, and unschedulable nodes, belong to
 * none). A domain's fit for the members still to place is computed by best-fit decreasing: members sorted by CPU,
 * then memory request (largest first), each put on the domain node with the least free CPU that still holds its
 * requests (CPU, memory, ephemeral storage, extended resources) and a pod slot; free is allocatable minus what is
 * requested on the node. A domain is feasible when it holds at least {@code required} members (minMember for a
 * gang, 1 for a basic group).
 *
 * <p>The rule among feasible domains, in order: more of the members held (all of them beats only minMember); then
 * the smallest free capacity left after placing them (best fit: the sum, over CPU and memory as far as the members
 * request them, of what stays free divided by the cluster-wide allocatable of that resource, so both weigh alike
 * and a large empty domain never looks tight; free pod slots when the members request neither); then fewer nodes (fewer hops for the group's traffic); then the domain's name, so the choice is
 * deterministic. Best fit keeps the larger free domains whole for the larger gangs that come later, which is what
 * keeps fragmentation low. Stateless and thread-safe.
 */
final class DomainPacking {

  private DomainPacking() {
  }

  /** One domain's result: how many members it holds and what stays free after placing them. */
  record Fit(String domain, List<String> nodes, int held, double leftover, long freeMilliCpu, long freeMemory) {
  }

  /** The nodes of each domain of {@code key}, by domain name (sorted), without unschedulable nodes. */
  static Map<String, List<NodeInfo>> domains(String key, Collection<NodeInfo> nodes) {
    Map<String, List<NodeInfo>> out = new TreeMap<>();
    for (NodeInfo n : nodes) {
      Optional<String> value = domainOf(key, n);
      if (value.isPresent() && !unschedulable(n)) {
        out.computeIfAbsent(value.get(), k -> new ArrayList<>()).add(n);
      }
    }
    return out;
  }

  /** The value of {@code key} on the node, if labelled. */
  static Optional<String> domainOf(String key, NodeInfo n) {
    Node node = n.node().orElse(null);
    if (node == null || node.getMetadata() == null || node.getMetadata().getLabels() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(node.getMetadata().getLabels().get(key));
  }

  private static boolean unschedulable(NodeInfo n) {
    Node node = n.node().orElse(null);
    return node != null && node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  /** How {@code domainNodes} hold {@code members} (best-fit decreasing); {@code clusterCpu/Memory} normalize. */
  static Fit fit(String domain, List<NodeInfo> domainNodes, List<Pod> members, long clusterMilliCpu,
      long clusterMemory, long clusterPods) {
    List<Resource> free = new ArrayList<>();
    List<Long> slots = new ArrayList<>();
    long freeCpu = 0;
    long freeMem = 0;
    long freeSlots = 0;
    for (NodeInfo n : domainNodes) {
      Resource f = n.allocatable().copy().subtract(n.requested());
      free.add(f);
      slots.add(n.allocatable().allowedPodNumber() - n.pods().size());
      freeCpu += Math.max(0, f.milliCpu());
      freeMem += Math.max(0, f.memory());
      freeSlots += Math.max(0, slots.get(slots.size() - 1));
    }
    List<Resource> requests = new ArrayList<>();
    for (Pod p : members) {
      requests.add(PodRequests.of(p));
    }
    requests.sort(Comparator.comparingLong(Resource::milliCpu).thenComparingLong(Resource::memory).reversed());
    int held = 0;
    long usedCpu = 0;
    long usedMem = 0;
    for (Resource r : requests) {
      int best = -1;
      for (int i = 0; i < free.size(); i++) {
        if (slots.get(i) > 0 && holds(free.get(i), r)
            && (best < 0 || free.get(i).milliCpu() < free.get(best).milliCpu())) {
          best = i;
        }
      }
      if (best >= 0) {
        free.get(best).subtract(r);
        slots.set(best, slots.get(best) - 1);
        held++;
        usedCpu += r.milliCpu();
        usedMem += r.memory();
      }
    }
    long askedCpu = requests.stream().mapToLong(Resource::milliCpu).sum();
    long askedMem = requests.stream().mapToLong(Resource::memory).sum();
    double leftover = (askedCpu > 0 ? fraction(freeCpu - usedCpu, clusterMilliCpu) : 0)
        + (askedMem > 0 ? fraction(freeMem - usedMem, clusterMemory) : 0)
        + (askedCpu == 0 && askedMem == 0 ? fraction(freeSlots - held, clusterPods) : 0);
    List<String> names = domainNodes.stream().map(NodeInfo::nodeName).toList();
    return new Fit(domain, names, held, leftover, freeCpu, freeMem);
  }

  private static double fraction(long amount, long total) {
    return total <= 0 ? 0 : (double) amount / total;
  }

  private static boolean holds(Resource free, Resource need) {
    if (need.milliCpu() > free.milliCpu() || need.memory() > free.memory()
        || need.ephemeralStorage() > free.ephemeralStorage()) {
      return false;
    }
    for (Map.Entry<String, Long> e : need.scalarResources().entrySet()) {
      if (e.getValue() > free.scalar(e.getKey())) {
        return false;
      }
    }
    return true;
  }

  /** The fits of every domain, best first by the rule above; {@code exclude} are tried last. */
  static List<Fit> rank(Map<String, List<NodeInfo>> domains, List<Pod> members, Collection<NodeInfo> allNodes,
      Set<String> exclude) {
    long cpu = 0;
    long mem = 0;
    long slots = 0;
    for (NodeInfo n : allNodes) {
      cpu += n.allocatable().milliCpu();
      mem += n.allocatable().memory();
      slots += n.allocatable().allowedPodNumber();
    }
    List<Fit> fits = new ArrayList<>();
    for (Map.Entry<String, List<NodeInfo>> d : domains.entrySet()) {
      fits.add(fit(d.getKey(), d.getValue(), members, cpu, mem, slots));
    }
    fits.sort(Comparator.<Fit, Boolean>comparing(f -> exclude.contains(f.domain()))
        .thenComparing(Comparator.comparingInt(Fit::held).reversed())
        .thenComparingDouble(Fit::leftover)
        .thenComparingInt(f -> f.nodes().size())
        .thenComparing(Fit::domain));
    return fits;
  }

  /** The domain holding the most members, ties by more free CPU: the one the waiting message names. */
  static Optional<Fit> largest(List<Fit> fits) {
    return fits.stream().max(Comparator.comparingInt(Fit::held).thenComparingLong(Fit::freeMilliCpu)
        .thenComparing(Fit::domain, Comparator.reverseOrder()));
  }

  /** Human units: cores (milli when fractional) and memory in Mi/Gi. */
  static String describe(long milliCpu, long memory) {
    String cpu = milliCpu % 1000 == 0 ? Long.toString(milliCpu / 1000) : milliCpu + "m";
    long mi = memory / (1024 * 1024);
    String mem = mi % 1024 == 0 && mi > 0 ? (mi / 1024) + "Gi" : mi + "Mi";
    return "cpu " + cpu + ", memory " + mem;
  }

  /** Placed members per domain, for {@code inGroup} pods on {@code nodes}. */
  static Map<String, Integer> placed(String key, Collection<NodeInfo> nodes, java.util.function.Predicate<Pod> inGroup) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (NodeInfo n : nodes) {
      Optional<String> d = domainOf(key, n);
      if (d.isEmpty()) {
        continue;
      }
      for (var p : n.pods()) {
        if (inGroup.test(p.pod())) {
          out.merge(d.get(), 1, Integer::sum);
        }
      }
    }
    return out;
  }
}
