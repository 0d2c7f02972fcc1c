package io.berth.framework;

import java.util.Map;
import java.util.Set;

/**
 * A pod (anti-)affinity term compiled for matching: the namespaces it names, its namespace
 * selector, its label selector and its topology key. Immutable and thread-safe.
 *
 * <p>As upstream: a term with neither namespaces nor a namespace selector means the namespace of
 * the pod that declares it; a pod matches when its namespace is listed or its namespace's labels
 * match the namespace selector, and its labels match the label selector.
 */
public record AffinityTerm(
    Set<String> namespaces, LabelMatcher selector, String topologyKey, LabelMatcher namespaceSelector) {

  /** Whether {@code podNamespace}/{@code podLabels} match, given the namespace's labels. */
  public boolean matches(String podNamespace, Map<String, String> podLabels,
      Map<String, String> namespaceLabels) {
    String ns = podNamespace == null ? "" : podNamespace;
    if (namespaces.contains(ns)
        || namespaceSelector.matches(namespaceLabels == null ? Map.of() : namespaceLabels)) {
      return selector.matches(podLabels == null ? Map.of() : podLabels);
    }
    return false;
  }
}
