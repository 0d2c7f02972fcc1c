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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * What PreScore computed for the soft (ScheduleAnyway) constraints, as upstream's
 * {@code preScoreState}: the feasible nodes ignored for lacking a topology key, the matching pod
 * count of every domain that holds a feasible node (hostname domains are counted per node in
 * Score instead), and each constraint's weight {@code log(domains + 2)}, which keeps the counts of
 * small topologies from being drowned by large ones.
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

  private PreScoreState(List<SpreadConstraint> constraints, Set<String> ignoredNodes,
      List<Map<String, AtomicLong>> domainCounts, double[] weights) {
    this.constraints = constraints;
    this.ignoredNodes = ignoredNodes;
    this.domainCounts = domainCounts;
    this.weights = weights;
  }

  /**
   * Builds the state. {@code requireAllTopologies} is false only for system-default constraints,
   * so that nodes without a zone label still get hostname spreading (they form the zone "").
   */
  static PreScoreState compute(Pod pod, List<SpreadConstraint> constraints,
      List<NodeInfo> filteredNodes, List<NodeInfo> allNodes, boolean requireAllTopologies,
      Parallelizer parallelizer) {
    Set<String> ignored = new HashSet<>();
    List<Map<String, AtomicLong>> counts = new ArrayList<>(constraints.size());
    for (int i = 0; i < constraints.size(); i++) {
      counts.add(new HashMap<>());
    }
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
      int size = constraints.get(i).isHostname() ? filteredNodes.size() - ignored.size()
          : counts.get(i).size();
      weights[i] = Math.log(size + 2);
    }

    Predicate<Node> affinity = SpreadConstraint.requiredNodeAffinity(pod);
    String namespace = pod.getMetadata().getNamespace();
    // The maps' keys were fixed above, before the workers start; workers only add to counters.
    parallelizer.until(allNodes.size(), n -> {
      NodeInfo nodeInfo = allNodes.get(n);
      Node node = nodeInfo.getNode();
      Map<String, String> labels = SpreadConstraint.labelsOf(node);
      if (requireAllTopologies && !SpreadConstraint.hasAllTopologyKeys(labels, constraints)) {
        return;
      }
      for (int i = 0; i < constraints.size(); i++) {
        SpreadConstraint c = constraints.get(i);
        if (!c.includesNode(pod, node, affinity)) {
          continue;
        }
        AtomicLong counter = counts.get(i).get(labels.getOrDefault(c.topologyKey(), ""));
        if (counter != null) {
          counter.addAndGet(c.countMatchingPods(nodeInfo, namespace));
        }
      }
    });
    return new PreScoreState(List.copyOf(constraints), Set.copyOf(ignored), counts, weights);
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
    double score = 0;
    for (int i = 0; i < constraints.size(); i++) {
      SpreadConstraint c = constraints.get(i);
      String value = labels.get(c.topologyKey());
      if (value == null) {
        continue;
      }
      long count;
      if (c.isHostname()) {
        count = c.countMatchingPods(nodeInfo, namespace);
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
