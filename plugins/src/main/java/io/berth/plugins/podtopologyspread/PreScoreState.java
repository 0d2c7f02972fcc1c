package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Parallelizer;
import io.berth.framework.ScorePlugin;
import io.berth.framework.StateData;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * What PreScore computed for the soft (ScheduleAnyway) constraints, as upstream's
 * {@code preScoreState}: the feasible nodes ignored for lacking a topology key, the matching pod
 * count of every domain that holds a feasible node, each constraint's weight
 * {@code log(domains + 2)}, which keeps the counts of small topologies from being drowned by large
 * ones, and, for hostname constraints (whose domain is the node itself, counted per node in Score
 * upstream), every feasible node's own count. The per-node counts come from a
 * {@link MatchCountMemo}, which recounts only nodes changed since an earlier cycle.
 *
 * <p>Immutable after {@link #compute} returns: the domain keys are fixed before the parallel pass
 * and the counters are only incremented during it; Score threads then only read.
 */
final class PreScoreState implements StateData {
  static final String KEY = "PreScore" + PodTopologySpread.NAME;

  private final List<SpreadConstraint> constraints;
  private final Set<String> ignoredNodes;
  private final List<Map<String, AtomicLong>> domainCounts;
  private final double[] weights;
  // feasible node -> its matching pods per constraint (hostname constraints' entries only)
  private final Map<NodeInfo, int[]> nodeCounts;

  private PreScoreState(List<SpreadConstraint> constraints, Set<String> ignoredNodes,
      List<Map<String, AtomicLong>> domainCounts, double[] weights, Map<NodeInfo, int[]> nodeCounts) {
    this.constraints = constraints;
    this.ignoredNodes = ignoredNodes;
    this.domainCounts = domainCounts;
    this.weights = weights;
    this.nodeCounts = nodeCounts;
  }

  /** As {@link #compute(Pod, List, List, List, boolean, Parallelizer, MatchCountMemo)} counting every node afresh. */
  static PreScoreState compute(Pod pod, List<SpreadConstraint> constraints,
      List<NodeInfo> filteredNodes, List<NodeInfo> allNodes, boolean requireAllTopologies,
      Parallelizer parallelizer) {
    return compute(pod, constraints, filteredNodes, allNodes, requireAllTopologies, parallelizer,
        new MatchCountMemo());
  }

  /**
   * Builds the state. {@code requireAllTopologies} is false only for system-default constraints,
   * so that nodes without a zone label still get hostname spreading (they form the zone "").
   */
  static PreScoreState compute(Pod pod, List<SpreadConstraint> constraints,
      List<NodeInfo> filteredNodes, List<NodeInfo> allNodes, boolean requireAllTopologies,
      Parallelizer parallelizer, MatchCountMemo memo) {
    Set<String> ignored = new HashSet<>();
    List<Map<String, AtomicLong>> counts = new ArrayList<>(constraints.size());
    for (int i = 0; i < constraints.size(); i++) {
      counts.add(new HashMap<>());
    }
    boolean anyHostname = false;
    boolean anyDomain = false;
    for (NodeInfo nodeInfo : filteredNodes) {
      Map<String, String> labels = SpreadConstraint.labelsOf(nodeInfo.getNode());
      if (requireAllTopologies && !SpreadConstraint.hasAllTopologyKeys(labels, constraints)) {
        ignored.add(nodeInfo.nodeName());
        continue;
      }
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        if (!c.isHostname()) {
          counts.get(i).computeIfAbsent(labels.getOrDefault(c.topologyKey(), ""),
              k -> new AtomicLong());
        }
      }
    }
    double[] weights = new double[constraints.size()];
    for (int i = 0; i < constraints.size(); i++) {
      SpreadConstraint c = constraints.get(i);
      anyHostname |= c.isHostname();
      anyDomain |= !c.isHostname() && !counts.get(i).isEmpty();
      int size = c.isHostname() ? filteredNodes.size() - ignored.size() : counts.get(i).size();
      weights[i] = Math.log(size + 2);
    }

    String namespace = pod.getMetadata().getNamespace();
    Map<NodeInfo, int[]> nodeCounts = new IdentityHashMap<>();
    try (MatchCountMemo.Session session = memo.open()) {
      int[][] perNode = new int[constraints.size()][];
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        if (c.isHostname() || !counts.get(i).isEmpty()) {
          perNode[i] = session.counts(c, namespace, allNodes, parallelizer);
        }
      }
      if (anyDomain) {
        sumDomains(pod, constraints, allNodes, requireAllTopologies, parallelizer, counts, perNode,
            session);
      }
      if (anyHostname) {
        for (NodeInfo nodeInfo : filteredNodes) {
          int s = session.positionOf(nodeInfo, allNodes);
          int[] own = new int[constraints.size()];
          for (int i = 0; i < constraints.size(); i++) {
            SpreadConstraint c = constraints.get(i);
            if (c.isHostname()) {
              own[i] = s >= 0 ? perNode[i][s] : c.countMatchingPods(nodeInfo, namespace);
            }
          }
          nodeCounts.put(nodeInfo, own);
        }
      }
    }
    return new PreScoreState(List.copyOf(constraints), Set.copyOf(ignored), counts, weights,
        nodeCounts);
  }

  /**
   * Adds, over every node holding the keys (all of them when {@code requireAllTopologies}) and
   * passing a constraint's node inclusion policies, the node's count to its domain's counter when
   * that domain holds a feasible node. The nodes' domains come from the session's
   * {@link TopologyIds}; the policies are evaluated on the parallelizer, as upstream's pass does,
   * and only for constraints where they can exclude a node for this pod.
   */
  private static void sumDomains(Pod pod, List<SpreadConstraint> constraints,
      List<NodeInfo> allNodes, boolean requireAllTopologies, Parallelizer parallelizer,
      List<Map<String, AtomicLong>> counts, int[][] perNode, MatchCountMemo.Session session) {
    int n = allNodes.size();
    int k = constraints.size();
    boolean[] summed = new boolean[k];
    TopologyIds[] ids = new TopologyIds[k];
    boolean noRequiredAffinity = SpreadConstraint.hasNoRequiredNodeAffinity(pod);
    boolean[][] excluded = new boolean[k][];
    boolean anyPolicy = false;
    for (int i = 0; i < k; i++) {
      SpreadConstraint c = constraints.get(i);
      // hostname domains are counted per node instead, as upstream counts them in Score
      summed[i] = !c.isHostname() && perNode[i] != null;
      if (summed[i] || requireAllTopologies) {
        ids[i] = session.topology(c.topologyKey(), allNodes);
      }
      if (summed[i] && !c.includesEveryNode(noRequiredAffinity)) {
        excluded[i] = new boolean[n];
        anyPolicy = true;
      }
    }
    if (anyPolicy) {
      Predicate<Node> affinity = SpreadConstraint.requiredNodeAffinity(pod);
      // each piece writes only its own node's slots; read after until() returned
      parallelizer.until(n, s -> {
        Node node = allNodes.get(s).getNode();
        for (int i = 0; i < k; i++) {
          if (excluded[i] != null) {
            excluded[i][s] = !constraints.get(i).includesNode(pod, node, affinity);
          }
        }
      });
    }
    // per summed constraint: the sums by domain id, and (last slot) of nodes without the label,
    // whose domain is "" (only system defaults count such nodes)
    long[][] sums = new long[k][];
    for (int i = 0; i < k; i++) {
      if (summed[i]) {
        sums[i] = new long[ids[i].size() + 1];
      }
    }
    for (int s = 0; s < n; s++) {
      if (requireAllTopologies && lacksAKey(ids, s)) {
        continue;
      }
      for (int i = 0; i < k; i++) {
        if (!summed[i] || (excluded[i] != null && excluded[i][s])) {
          continue;
        }
        int id = ids[i].idAt(s);
        sums[i][id == TopologyIds.ABSENT ? sums[i].length - 1 : id] += perNode[i][s];
      }
    }
    for (int i = 0; i < k; i++) {
      if (!summed[i]) {
        continue;
      }
      Map<String, AtomicLong> domains = counts.get(i);
      for (int id = 0; id < sums[i].length; id++) {
        AtomicLong counter = domains.get(id == sums[i].length - 1 ? "" : ids[i].value(id));
        if (counter != null && sums[i][id] != 0) {
          counter.addAndGet(sums[i][id]);
        }
      }
    }
  }

  private static boolean lacksAKey(TopologyIds[] ids, int s) {
    for (TopologyIds t : ids) {
      if (t.idAt(s) == TopologyIds.ABSENT) {
        return true;
      }
    }
    return false;
  }

  /**
   * The node's raw score: for every constraint whose key the node has, the matching pods of its
   * domain times the constraint's weight, plus {@code maxSkew - 1} so that larger skews tolerate
   * more imbalance; rounded. Ignored nodes score 0.
   */
  long score(Pod pod, NodeInfo nodeInfo) {
    if (ignoredNodes.contains(nodeInfo.nodeName())) {
      return 0;
    }
    Map<String, String> labels = SpreadConstraint.labelsOf(nodeInfo.getNode());
    String namespace = pod.getMetadata().getNamespace();
    int[] own = nodeCounts.get(nodeInfo);
    double score = 0;
    for (int i = 0; i < constraints.size(); i++) {
      SpreadConstraint c = constraints.get(i);
      String value = labels.get(c.topologyKey());
      if (value == null) {
        continue;
      }
      long count;
      if (c.isHostname()) {
        // a node PreScore was not given (not feasible) is counted here, as upstream always does
        count = own != null ? own[i] : c.countMatchingPods(nodeInfo, namespace);
      } else {
        AtomicLong counter = domainCounts.get(i).get(value);
        count = counter == null ? 0 : counter.get();
      }
      score += count * weights[i] + (c.maxSkew() - 1);
    }
    return Math.round(score);
  }

  /**
   * Inverts the raw scores so fewer matching pods rank higher:
   * {@code MaxNodeScore * (max + min - s) / max}, with min and max over the scored nodes; all
   * nodes get MaxNodeScore when every raw score is 0, and ignored nodes get 0.
   */
  void normalize(List<NodeScore> scores) {
    long min = Long.MAX_VALUE;
    long max = 0;
    for (NodeScore s : scores) {
      if (ignoredNodes.contains(s.name())) {
        continue;
      }
      min = Math.min(min, s.score());
      max = Math.max(max, s.score());
    }
    for (NodeScore s : scores) {
      if (ignoredNodes.contains(s.name())) {
        s.setScore(0);
      } else if (max == 0) {
        s.setScore(ScorePlugin.MAX_NODE_SCORE);
      } else {
        s.setScore(ScorePlugin.MAX_NODE_SCORE * (max + min - s.score()) / max);
      }
    }
  }

  List<SpreadConstraint> constraints() {
    return constraints;
  }

  Set<String> ignoredNodes() {
    return ignoredNodes;
  }

  /** Constraint {@code i}'s domain counts, as plain numbers (for tests and debugging). */
  Map<String, Long> domainCounts(int i) {
    Map<String, Long> out = new HashMap<>();
    domainCounts.get(i).forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  double weight(int i) {
    return weights[i];
  }

  @Override
  public StateData copy() {
    return this;
  }
}
