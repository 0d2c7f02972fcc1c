package io.berth.plugins.interpodaffinity;

import io.berth.framework.AffinityTerm;
import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.berth.framework.PodInfo;
import io.berth.framework.StateData;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What PreFilter precomputes for Filter, as upstream's {@code preFilterState}: three
 * {@link TopologyCounts} over the snapshot and the incoming pod's required terms with their
 * namespace selectors merged ({@link AffinityTerms}).
 *
 * <ul>
 *   <li>{@code existingAntiAffinityCounts}: per domain, existing pods whose required anti-affinity
 *       terms match the incoming pod (one per matching term);
 *   <li>{@code affinityCounts}: per domain of each required affinity term, existing pods that
 *       match all of the incoming pod's required affinity terms;
 *   <li>{@code antiAffinityCounts}: per domain, existing pods that match one of the incoming pod's
 *       required anti-affinity terms.
 * </ul>
 *
 * <p>The terms, pod and namespace labels are immutable; the counts are thread-safe and change
 * only through {@link #updateWithPod} (AddPod/RemovePod, on a copy the caller owns).
 */
final class PreFilterState implements StateData {
  static final String KEY = "PreFilter" + InterPodAffinity.NAME;

  final PodInfo podInfo;
  final List<AffinityTerm> requiredAffinityTerms;
  final List<AffinityTerm> requiredAntiAffinityTerms;
  /** The incoming pod's namespace labels, for matching existing pods' terms against it. */
  final Map<String, String> namespaceLabels;
  final TopologyCounts existingAntiAffinityCounts;
  final TopologyCounts affinityCounts;
  final TopologyCounts antiAffinityCounts;

  PreFilterState(PodInfo podInfo, List<AffinityTerm> requiredAffinityTerms,
      List<AffinityTerm> requiredAntiAffinityTerms, Map<String, String> namespaceLabels,
      TopologyCounts existingAntiAffinityCounts, TopologyCounts affinityCounts,
      TopologyCounts antiAffinityCounts) {
    this.podInfo = podInfo;
    this.requiredAffinityTerms = requiredAffinityTerms;
    this.requiredAntiAffinityTerms = requiredAntiAffinityTerms;
    this.namespaceLabels = namespaceLabels;
    this.existingAntiAffinityCounts = existingAntiAffinityCounts;
    this.affinityCounts = affinityCounts;
    this.antiAffinityCounts = antiAffinityCounts;
  }

  /**
   * Counts, over {@code nodes} (those with pods that have required anti-affinity), the existing
   * pods' anti-affinity terms matching {@code pod}. Nodes unchanged since {@code memo} counted
   * them for the same pod namespace, labels and namespace labels are not recounted; the others
   * are processed by {@code parallelizer} when many.
   */
  static TopologyCounts existingAntiAffinityCounts(Pod pod, Map<String, String> namespaceLabels,
      List<NodeInfo> nodes, Parallelizer parallelizer, NodeContributions memo) {
    Object key = List.of(AffinityTerms.namespace(pod), new HashMap<>(AffinityTerms.labels(pod)),
        new HashMap<>(namespaceLabels));
    return memo.sum(Optional.of(key), nodes, parallelizer, (nodeInfo, into) -> {
      if (nodeInfo.node().isEmpty()) {
        return;
      }
      Map<String, String> nodeLabels = AffinityTerms.labels(nodeInfo.getNode());
      for (PodInfo existing : nodeInfo.podsWithRequiredAntiAffinity()) {
        into[0].updateWithAntiAffinityTerms(existing.requiredAntiAffinityTerms(), pod,
            namespaceLabels, nodeLabels, 1);
      }
    })[0];
  }

  /** As above, counting every node afresh. */
  static TopologyCounts existingAntiAffinityCounts(Pod pod, Map<String, String> namespaceLabels,
      List<NodeInfo> nodes, Parallelizer parallelizer) {
    return existingAntiAffinityCounts(pod, namespaceLabels, nodes, parallelizer,
        new NodeContributions(1));
  }

  /** The counts of existing pods matching the incoming pod's affinity and anti-affinity terms. */
  record IncomingCounts(TopologyCounts affinity, TopologyCounts antiAffinity) {}

  /**
   * Counts, over all {@code nodes}, the existing pods matching the incoming pod's (merged)
   * required affinity and anti-affinity terms. {@code key}, when present, must determine the
   * merged terms (see {@link NodeContributions}); nodes unchanged since {@code memo} counted them
   * for it are not recounted.
   */
  static IncomingCounts incomingCounts(List<AffinityTerm> affinityTerms,
      List<AffinityTerm> antiAffinityTerms, List<NodeInfo> nodes, Parallelizer parallelizer,
      Optional<Object> key, NodeContributions memo) {
    if (affinityTerms.isEmpty() && antiAffinityTerms.isEmpty()) {
      return new IncomingCounts(new TopologyCounts(), new TopologyCounts());
    }
    TopologyCounts[] counts = memo.sum(key, nodes, parallelizer, (nodeInfo, into) -> {
      if (nodeInfo.node().isEmpty()) {
        return;
      }
      List<PodInfo> pods = nodeInfo.pods();
      if (pods.isEmpty()) {
        return;
      }
      Map<String, String> nodeLabels = AffinityTerms.labels(nodeInfo.getNode());
      for (PodInfo existing : pods) {
        into[0].updateWithAffinityTerms(affinityTerms, existing.pod(), nodeLabels, 1);
        // merged terms: the existing pod's namespace labels are not needed
        into[1].updateWithAntiAffinityTerms(antiAffinityTerms, existing.pod(), Map.of(),
            nodeLabels, 1);
      }
    });
    return new IncomingCounts(counts[0], counts[1]);
  }

  /** As above, counting every node afresh. */
  static IncomingCounts incomingCounts(List<AffinityTerm> affinityTerms,
      List<AffinityTerm> antiAffinityTerms, List<NodeInfo> nodes, Parallelizer parallelizer) {
    return incomingCounts(affinityTerms, antiAffinityTerms, nodes, parallelizer,
        Optional.empty(), new NodeContributions(2));
  }

  /** Counts {@code pod} on {@code node} in (multiplier 1) or out (-1) of all three counts. */
  void updateWithPod(PodInfo pod, Node node, long multiplier) {
    Map<String, String> nodeLabels = AffinityTerms.labels(node);
    existingAntiAffinityCounts.updateWithAntiAffinityTerms(pod.requiredAntiAffinityTerms(),
        podInfo.pod(), namespaceLabels, nodeLabels, multiplier);
    affinityCounts.updateWithAffinityTerms(requiredAffinityTerms, pod.pod(), nodeLabels,
        multiplier);
    antiAffinityCounts.updateWithAntiAffinityTerms(requiredAntiAffinityTerms, pod.pod(), Map.of(),
        nodeLabels, multiplier);
  }

  /**
   * Whether the node satisfies the incoming pod's required affinity: the node has every term's
   * topology key and each of its domains holds a matching pod. As upstream, the first pod of a
   * group that is affine to itself passes when no pod anywhere matches the terms but the pod
   * matches them itself.
   */
  boolean satisfiesPodAffinity(Map<String, String> nodeLabels) {
    boolean podsExist = true;
    for (AffinityTerm term : requiredAffinityTerms) {
      String value = nodeLabels.get(term.topologyKey());
      if (value == null) {
        return false;
      }
      if (affinityCounts.get(new TopologyPair(term.topologyKey(), value)) <= 0) {
        podsExist = false;
      }
    }
    if (podsExist) {
      return true;
    }
    return affinityCounts.isEmpty()
        && AffinityTerms.podMatchesAll(requiredAffinityTerms, podInfo.pod());
  }

  /** Whether no domain of the node holds a pod matching the incoming pod's anti-affinity. */
  boolean satisfiesPodAntiAffinity(Map<String, String> nodeLabels) {
    if (antiAffinityCounts.isEmpty()) {
      return true;
    }
    for (AffinityTerm term : requiredAntiAffinityTerms) {
      String value = nodeLabels.get(term.topologyKey());
      if (value != null
          && antiAffinityCounts.get(new TopologyPair(term.topologyKey(), value)) > 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether no existing pod's anti-affinity rejects the incoming pod in any domain of the node. */
  boolean satisfiesExistingPodsAntiAffinity(Map<String, String> nodeLabels) {
    if (existingAntiAffinityCounts.isEmpty()) {
      return true;
    }
    for (Map.Entry<String, String> label : nodeLabels.entrySet()) {
      if (existingAntiAffinityCounts.get(new TopologyPair(label.getKey(), label.getValue())) > 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public PreFilterState copy() {
    return new PreFilterState(podInfo, requiredAffinityTerms, requiredAntiAffinityTerms,
        namespaceLabels, existingAntiAffinityCounts.copy(), affinityCounts.copy(),
        antiAffinityCounts.copy());
  }
}
