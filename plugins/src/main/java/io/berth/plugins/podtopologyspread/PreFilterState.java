package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;

/**
 * What PreFilter computed for the hard (DoNotSchedule) constraints of the pod being scheduled:
 * per constraint, the number of matching pods in every eligible topology domain and the two
 * smallest of those counts. Filter reads it from many threads; AddPod/RemovePod (nominated pods,
 * preemption) change the counts. The constraints are immutable; the counts and critical paths are
 * guarded by {@code lock} (read for Filter, write for AddPod/RemovePod), as upstream does.
 */
final class PreFilterState implements StateData {
  static final String KEY = "PreFilter" + PodTopologySpread.NAME;

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final List<SpreadConstraint> constraints;
  // guarded by lock; index = constraint index, key = topology value
  private final List<Map<String, Integer>> matchNums;
  // guarded by lock; index = constraint index
  private final List<CriticalPaths> criticalPaths;

  private PreFilterState(List<SpreadConstraint> constraints, List<Map<String, Integer>> matchNums,
      List<CriticalPaths> criticalPaths) {
    this.constraints = constraints;
    this.matchNums = matchNums;
    this.criticalPaths = criticalPaths;
  }

  /**
   * Counts, over the nodes that hold every constraint's topology key and pass the constraint's
   * node inclusion policies, the pods in the pod's namespace matching each selector. Nodes are
   * processed on the parallelizer; each worker writes only its own slot of {@code perNode}, which
   * is read after {@link Parallelizer#until} has returned (it waits for every piece).
   */
  static PreFilterState count(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes,
      Parallelizer parallelizer) {
    Predicate<Node> affinity = SpreadConstraint.requiredNodeAffinity(pod);
    String namespace = pod.getMetadata().getNamespace();
    int[][] perNode = new int[nodes.size()][];
    parallelizer.until(nodes.size(), n -> {
      Node node = nodes.get(n).getNode();
      Map<String, String> labels = SpreadConstraint.labelsOf(node);
      if (!SpreadConstraint.hasAllTopologyKeys(labels, constraints)) {
        return;
      }
      int[] counts = new int[constraints.size()];
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        counts[i] = c.includesNode(pod, node, affinity)
            ? c.countMatchingPods(nodes.get(n), namespace) : -1;
      }
      perNode[n] = counts;
    });
    List<Map<String, Integer>> matchNums = new ArrayList<>(constraints.size());
    for (int i = 0; i < constraints.size(); i++) {
      matchNums.add(new HashMap<>());
    }
    for (int n = 0; n < perNode.length; n++) {
      if (perNode[n] == null) {
        continue;
      }
      Map<String, String> labels = SpreadConstraint.labelsOf(nodes.get(n).getNode());
      for (int i = 0; i < constraints.size(); i++) {
        if (perNode[n][i] >= 0) {
          matchNums.get(i).merge(labels.get(constraints.get(i).topologyKey()), perNode[n][i],
              Integer::sum);
        }
      }
    }
    List<CriticalPaths> paths = new ArrayList<>(constraints.size());
    for (Map<String, Integer> domainCounts : matchNums) {
      CriticalPaths p = new CriticalPaths();
      domainCounts.forEach(p::update);
      paths.add(p);
    }
    return new PreFilterState(List.copyOf(constraints), matchNums, paths);
  }

  List<SpreadConstraint> constraints() {
    return constraints;
  }

  /**
   * Filter for one node: a node missing a topology key is UnschedulableAndUnresolvable; otherwise
   * the node fails when, for some constraint, {@code count(node's domain) + (1 if the pod matches
   * its own selector) - global minimum > maxSkew}. The global minimum is 0 while fewer domains
   * than minDomains are eligible.
   */
  Status filter(Pod pod, Node node) {
    Map<String, String> nodeLabels = SpreadConstraint.labelsOf(node);
    Map<String, String> podLabels = pod.getMetadata().getLabels();
    lock.readLock().lock();
    try {
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        String value = nodeLabels.get(c.topologyKey());
        if (value == null) {
          return Status.unresolvable(PodTopologySpread.ERR_REASON_NODE_LABEL_NOT_MATCH);
        }
        long selfMatch = c.selects(podLabels) ? 1 : 0;
        long skew = matchNums.get(i).getOrDefault(value, 0) + selfMatch - minMatchNum(i);
        if (skew > c.maxSkew()) {
          return Status.unschedulable(PodTopologySpread.ERR_REASON_CONSTRAINTS_NOT_MATCH);
        }
      }
      return Status.SUCCESS;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Caller holds the lock. */
  private int minMatchNum(int i) {
    if (matchNums.get(i).size() < constraints.get(i).minDomains()) {
      return 0;
    }
    return criticalPaths.get(i).minMatchNum();
  }

  /**
   * Adds ({@code delta} 1) or removes ({@code delta} -1) {@code changed} on {@code node} for the
   * pod being scheduled, when the pod would have been counted by PreFilter.
   */
  void update(Pod changed, Pod podToSchedule, Node node, int delta) {
    if (node == null || !Objects.equals(changed.getMetadata().getNamespace(),
        podToSchedule.getMetadata().getNamespace())) {
      return;
    }
    Map<String, String> nodeLabels = SpreadConstraint.labelsOf(node);
    if (!SpreadConstraint.hasAllTopologyKeys(nodeLabels, constraints)) {
      return;
    }
    Predicate<Node> affinity = SpreadConstraint.requiredNodeAffinity(podToSchedule);
    Map<String, String> changedLabels = changed.getMetadata().getLabels();
    lock.writeLock().lock();
    try {
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        if (!c.selects(changedLabels) || !c.includesNode(podToSchedule, node, affinity)) {
          continue;
        }
        String value = nodeLabels.get(c.topologyKey());
        int num = matchNums.get(i).merge(value, delta, Integer::sum);
        criticalPaths.get(i).update(value, num);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** A copy of constraint {@code i}'s counts per domain (for tests and debugging). */
  Map<String, Integer> matchNums(int i) {
    lock.readLock().lock();
    try {
      return Map.copyOf(matchNums.get(i));
    } finally {
      lock.readLock().unlock();
    }
  }

  /** A copy of constraint {@code i}'s critical paths (for tests and debugging). */
  CriticalPaths criticalPaths(int i) {
    lock.readLock().lock();
    try {
      return criticalPaths.get(i).copy();
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public StateData copy() {
    lock.readLock().lock();
    try {
      List<Map<String, Integer>> counts = new ArrayList<>(matchNums.size());
      for (Map<String, Integer> m : matchNums) {
        counts.add(new HashMap<>(m));
      }
      List<CriticalPaths> paths = new ArrayList<>(criticalPaths.size());
      for (CriticalPaths p : criticalPaths) {
        paths.add(p.copy());
      }
      return new PreFilterState(constraints, counts, paths);
    } finally {
      lock.readLock().unlock();
    }
  }
}
