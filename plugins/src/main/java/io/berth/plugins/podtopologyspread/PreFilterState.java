package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What PreFilter computed for the hard (DoNotSchedule) constraints of the pod being scheduled:
 * per constraint, the number of matching pods in every eligible topology domain and the two
 * smallest of those counts. Filter reads it from many threads; AddPod/RemovePod (nominated pods,
 * preemption) change the counts. The constraints and the pod's self-match flags are immutable;
 * the counts and critical paths live in an immutable {@link Domains} array held in the volatile
 * {@code counts}: Filter reads it without locking, and AddPod/RemovePod, holding {@code this},
 * publish a changed copy (copy-on-write), so {@link #copy()} can share it.
 */
final class PreFilterState implements StateData {
  static final String KEY = "PreFilter" + PodTopologySpread.NAME;

  private final List<SpreadConstraint> constraints;
  // the labels of the pod PreFilter ran for, and whether each constraint selects them
  private final Map<String, String> podLabels;
  private final int[] selfMatch;
  // immutable snapshot, replaced (never mutated) by writers holding this; index = constraint
  private volatile Domains[] counts;

  /**
   * One constraint's counts, never mutated once built: topology value to index in {@code nums},
   * the counts, the critical paths, and the global minimum Filter uses (0 while fewer domains
   * than minDomains are eligible).
   */
  private record Domains(Map<String, Integer> ids, int[] nums, CriticalPaths paths, int minMatch) {
    static Domains of(Map<String, Integer> ids, int[] nums, CriticalPaths paths, int minDomains) {
      return new Domains(ids, nums, paths, ids.size() < minDomains ? 0 : paths.minMatchNum());
    }

    int num(String value) {
      Integer id = ids.get(value);
      return id == null ? 0 : nums[id];
    }

    /** A copy with {@code delta} added to {@code value}'s count (the domain added if new). */
    Domains plus(String value, int delta, int minDomains) {
      Integer id = ids.get(value);
      Map<String, Integer> newIds = ids;
      int[] newNums;
      if (id == null) {
        id = nums.length;
        newIds = new HashMap<>(ids);
        newIds.put(value, id);
        newNums = Arrays.copyOf(nums, id + 1);
      } else {
        newNums = nums.clone();
      }
      newNums[id] += delta;
      CriticalPaths newPaths = paths.copy();
      newPaths.update(value, newNums[id]);
      return of(newIds, newNums, newPaths, minDomains);
    }
  }

  private PreFilterState(List<SpreadConstraint> constraints, Map<String, String> podLabels,
      int[] selfMatch, Domains[] counts) {
    this.constraints = constraints;
    this.podLabels = podLabels;
    this.selfMatch = selfMatch;
    this.counts = counts;
  }

  /**
   * Counts, over the nodes that hold every constraint's topology key and pass the constraint's
   * node inclusion policies, the pods in the pod's namespace matching each selector. Only nodes
   * changed since {@code tally} last counted them are recounted, on the parallelizer when many.
   */
  static PreFilterState count(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes,
      Parallelizer parallelizer, Tally tally) {
    Tally.DomainCounts[] perConstraint = tally.refresh(pod, constraints, nodes, parallelizer);
    Domains[] domains = new Domains[constraints.size()];
    for (int i = 0; i < constraints.size(); i++) {
      Tally.DomainCounts dc = perConstraint[i];
      CriticalPaths p = new CriticalPaths();
      int[] nums = dc.nums();
      dc.ids().forEach((value, id) -> p.update(value, nums[id]));
      domains[i] = Domains.of(dc.ids(), nums, p, constraints.get(i).minDomains());
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    int[] self = new int[constraints.size()];
    for (int i = 0; i < constraints.size(); i++) {
      self[i] = constraints.get(i).selects(labels) ? 1 : 0;
    }
    return new PreFilterState(List.copyOf(constraints), labels, self, domains);
  }

  /** As {@link #count(Pod, List, List, Parallelizer, Tally)} counting every node afresh. */
  static PreFilterState count(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes,
      Parallelizer parallelizer) {
    return count(pod, constraints, nodes, parallelizer, new Tally(constraints.size()));
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
    Map<String, String> labels = pod.getMetadata().getLabels();
    Domains[] current = counts;
    for (int i = 0; i < constraints.size(); i++) {
      SpreadConstraint c = constraints.get(i);
      String value = nodeLabels.get(c.topologyKey());
      if (value == null) {
        return Status.unresolvable(PodTopologySpread.ERR_REASON_NODE_LABEL_NOT_MATCH);
      }
      int self = labels == podLabels ? selfMatch[i] : (c.selects(labels) ? 1 : 0);
      Domains d = current[i];
      long skew = (long) d.num(value) + self - d.minMatch();
      if (skew > c.maxSkew()) {
        return Status.unschedulable(PodTopologySpread.ERR_REASON_CONSTRAINTS_NOT_MATCH);
      }
    }
    return Status.SUCCESS;
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
    boolean[] counted = new boolean[constraints.size()];
    boolean any = false;
    for (int i = 0; i < constraints.size(); i++) {
      SpreadConstraint c = constraints.get(i);
      counted[i] = c.selects(changedLabels) && c.includesNode(podToSchedule, node, affinity);
      any |= counted[i];
    }
    if (!any) {
      return;
    }
    synchronized (this) {
      Domains[] next = counts.clone();
      for (int i = 0; i < constraints.size(); i++) {
        if (counted[i]) {
          SpreadConstraint c = constraints.get(i);
          next[i] = next[i].plus(nodeLabels.get(c.topologyKey()), delta, c.minDomains());
        }
      }
      counts = next;
    }
  }

  /** A copy of constraint {@code i}'s counts per domain (for tests and debugging). */
  Map<String, Integer> matchNums(int i) {
    Domains d = counts[i];
    Map<String, Integer> out = new HashMap<>();
    d.ids().forEach((value, id) -> out.put(value, d.nums()[id]));
    return Map.copyOf(out);
  }

  /** A copy of constraint {@code i}'s critical paths (for tests and debugging). */
  CriticalPaths criticalPaths(int i) {
    return counts[i].paths().copy();
  }

  /** An independent state sharing the (immutable) counts until either side changes them. */
  @Override
  public StateData copy() {
    return new PreFilterState(constraints, podLabels, selfMatch, counts);
  }
}
