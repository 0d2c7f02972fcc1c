package io.berth.plugins.interpodaffinity;

import io.berth.framework.AffinityTerm;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many existing pods match a set of (anti-)affinity terms in each topology domain, as
 * upstream's {@code topologyToMatchedTermCount}. A domain whose count drops to zero is removed, so
 * {@link #isEmpty()} means "no pod matched anywhere".
 *
 * <p>Thread-safe: PreFilter's parallel workers merge into one instance, Filter threads read it,
 * and AddPod/RemovePod update it on a cycle-state copy owned by one thread.
 */
final class TopologyCounts {
  // thread-safe map; per-key updates are atomic (merge)
  private final ConcurrentHashMap<TopologyPair, Long> counts;

  TopologyCounts() {
    this.counts = new ConcurrentHashMap<>();
  }

  private TopologyCounts(Map<TopologyPair, Long> from) {
    this.counts = new ConcurrentHashMap<>(from);
  }

  /** Counts holding {@code counts}, whose values must all be non-zero. */
  static TopologyCounts of(Map<TopologyPair, Long> counts) {
    return new TopologyCounts(counts);
  }

  /** Adds {@code delta} to the domain; removes the domain when its count reaches zero. */
  void add(TopologyPair pair, long delta) {
    counts.merge(pair, delta, (a, b) -> a + b == 0 ? null : a + b);
  }

  /** Adds {@code delta} to the node's domain for {@code topologyKey}, if the node has the key. */
  void add(Map<String, String> nodeLabels, String topologyKey, long delta) {
    String value = nodeLabels.get(topologyKey);
    if (value != null) {
      add(new TopologyPair(topologyKey, value), delta);
    }
  }

  /**
   * For each of the incoming pod's affinity {@code terms}, counts {@code pod} in the node's domain
   * when the pod matches all of the terms (a single pod must satisfy every term).
   */
  void updateWithAffinityTerms(List<AffinityTerm> terms, Pod pod, Map<String, String> nodeLabels,
      long delta) {
    if (AffinityTerms.podMatchesAll(terms, pod)) {
      for (AffinityTerm term : terms) {
        add(nodeLabels, term.topologyKey(), delta);
      }
    }
  }

  /** Counts {@code pod} in the node's domain of each anti-affinity term it matches. */
  void updateWithAntiAffinityTerms(List<AffinityTerm> terms, Pod pod,
      Map<String, String> namespaceLabels, Map<String, String> nodeLabels, long delta) {
    String namespace = AffinityTerms.namespace(pod);
    Map<String, String> labels = AffinityTerms.labels(pod);
    for (AffinityTerm term : terms) {
      if (term.matches(namespace, labels, namespaceLabels)) {
        add(nodeLabels, term.topologyKey(), delta);
      }
    }
  }

  /** Adds every domain of {@code other}. */
  void addAll(TopologyCounts other) {
    other.counts.forEach(this::add);
  }

  long get(TopologyPair pair) {
    return counts.getOrDefault(pair, 0L);
  }

  boolean isEmpty() {
    return counts.isEmpty();
  }

  /** An independent copy. */
  TopologyCounts copy() {
    return new TopologyCounts(counts);
  }

  /** A point-in-time copy of the counts. */
  Map<TopologyPair, Long> asMap() {
    return Map.copyOf(counts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TopologyCounts other && counts.equals(other.counts);
  }

  @Override
  public int hashCode() {
    return counts.hashCode();
  }

  @Override
  public String toString() {
    return counts.toString();
  }
}
