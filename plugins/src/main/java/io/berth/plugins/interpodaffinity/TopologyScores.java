package io.berth.plugins.interpodaffinity;

import io.berth.framework.AffinityTerm;
import io.berth.framework.WeightedAffinityTerm;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PreScore's accumulator, as upstream's {@code scoreMap}: topology key → topology value → the
 * sum of the weights of the terms matched in that domain (positive for affinity, negative for
 * anti-affinity). Thread-safe: PreScore's parallel workers merge into one instance.
 */
final class TopologyScores {
  // thread-safe maps; per-key updates are atomic (computeIfAbsent, merge)
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Long>> scores;

  TopologyScores() {
    this.scores = new ConcurrentHashMap<>();
  }

  /**
   * Adds {@code weight * multiplier} to the node's domain for the term's topology key when
   * {@code pod} matches the term and the node has the key.
   */
  void processTerm(AffinityTerm term, long weight, Pod pod, Map<String, String> namespaceLabels,
      Map<String, String> nodeLabels, long multiplier) {
    if (term.matches(AffinityTerms.namespace(pod), AffinityTerms.labels(pod),
        namespaceLabels)) {
      String value = nodeLabels.get(term.topologyKey());
      if (value != null) {
        add(term.topologyKey(), value, weight * multiplier);
      }
    }
  }

  void processTerms(List<WeightedAffinityTerm> terms, Pod pod,
      Map<String, String> namespaceLabels, Map<String, String> nodeLabels, long multiplier) {
    for (WeightedAffinityTerm term : terms) {
      processTerm(term.term(), term.weight(), pod, namespaceLabels, nodeLabels, multiplier);
    }
  }

  private void add(String key, String value, long delta) {
    scores.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).merge(value, delta, Long::sum);
  }

  /** Adds every entry of {@code other}. */
  void addAll(TopologyScores other) {
    other.scores.forEach((key, values) -> values.forEach((value, s) -> add(key, value, s)));
  }

  boolean isEmpty() {
    return scores.isEmpty();
  }

  /** An immutable copy. */
  Map<String, Map<String, Long>> freeze() {
    Map<String, Map<String, Long>> copy = new HashMap<>();
    scores.forEach((key, values) -> copy.put(key, Map.copyOf(values)));
    return Collections.unmodifiableMap(copy);
  }
}
