package io.berth.plugins.interpodaffinity;

import io.berth.framework.AffinityTerm;
import io.berth.framework.LabelMatcher;
import io.berth.framework.ObjectLister;
import io.berth.framework.WeightedAffinityTerm;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Matching helpers shared by filtering, scoring and the queueing hints. Stateless.
 *
 * <p>The incoming pod's terms are "merged" before use, as upstream's
 * {@code mergeAffinityTermNamespacesIfNotEmpty}: a namespace selector that is neither empty
 * (match all) is unrolled into the term's namespace set using the namespace lister and replaced by
 * "nothing", so matching an existing pod against such a term never needs that pod's namespace
 * labels. Existing pods' terms are not merged; they are matched with the incoming pod's namespace
 * labels instead.
 */
final class AffinityTerms {
  private AffinityTerms() {}

  /** Whether {@code pod} matches every term (false for no terms), ignoring namespace labels. */
  static boolean podMatchesAll(List<AffinityTerm> terms, Pod pod) {
    if (terms.isEmpty()) {
      return false;
    }
    String namespace = namespace(pod);
    Map<String, String> labels = labels(pod);
    for (AffinityTerm term : terms) {
      if (!term.matches(namespace, labels, Map.of())) {
        return false;
      }
    }
    return true;
  }

  /** The terms with their namespace selectors unrolled into namespace sets (see class doc). */
  static List<AffinityTerm> mergeNamespaces(List<AffinityTerm> terms,
      ObjectLister<Namespace> namespaceLister) {
    if (terms.isEmpty()) {
      return terms;
    }
    List<Namespace> namespaces = null;
    List<AffinityTerm> merged = new ArrayList<>(terms.size());
    for (AffinityTerm term : terms) {
      LabelMatcher selector = term.namespaceSelector();
      if (selector == LabelMatcher.EVERYTHING) {
        merged.add(term);
        continue;
      }
      Set<String> names = new HashSet<>(term.namespaces());
      if (selector != LabelMatcher.NOTHING) {
        if (namespaces == null) {
          namespaces = namespaceLister.list();
        }
        for (Namespace ns : namespaces) {
          if (selector.matches(labels(ns))) {
            names.add(ns.getMetadata().getName());
          }
        }
      }
      merged.add(new AffinityTerm(Set.copyOf(names), term.selector(), term.topologyKey(),
          LabelMatcher.NOTHING));
    }
    return List.copyOf(merged);
  }

  /** The weighted terms with their namespace selectors merged (see class doc). */
  static List<WeightedAffinityTerm> mergeWeightedNamespaces(List<WeightedAffinityTerm> terms,
      ObjectLister<Namespace> namespaceLister) {
    if (terms.isEmpty()) {
      return terms;
    }
    List<AffinityTerm> merged =
        mergeNamespaces(terms.stream().map(WeightedAffinityTerm::term).toList(), namespaceLister);
    List<WeightedAffinityTerm> out = new ArrayList<>(terms.size());
    for (int i = 0; i < terms.size(); i++) {
      out.add(new WeightedAffinityTerm(merged.get(i), terms.get(i).weight()));
    }
    return List.copyOf(out);
  }

  /** A snapshot of the namespace's labels; empty when the namespace is unknown. */
  static Map<String, String> namespaceLabels(String namespace,
      ObjectLister<Namespace> namespaceLister) {
    if (namespace == null) {
      return Map.of();
    }
    return namespaceLister.get("", namespace)
        .map(ns -> Collections.unmodifiableMap(new HashMap<>(labels(ns))))
        .orElse(Map.of());
  }

  /** The pod's namespace, "" when unset (as upstream's zero value). */
  static String namespace(Pod pod) {
    String namespace = pod.getMetadata() == null ? null : pod.getMetadata().getNamespace();
    return namespace == null ? "" : namespace;
  }

  /** The object's labels, never null. */
  static Map<String, String> labels(HasMetadata object) {
    Map<String, String> labels = object.getMetadata() == null ? null
        : object.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }
}
