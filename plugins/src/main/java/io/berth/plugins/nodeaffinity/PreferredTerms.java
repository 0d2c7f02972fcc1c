package io.berth.plugins.nodeaffinity;

import io.berth.framework.NodeSelectorMatcher;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Compiled preferred scheduling terms, as upstream's {@code nodeaffinity.PreferredSchedulingTerms}:
 * a node's score is the sum of the weights of the terms it matches. Terms with weight 0 or with
 * neither expressions nor fields are dropped unparsed, as upstream drops them. Immutable and
 * thread-safe.
 */
final class PreferredTerms {
  private record Term(Predicate<Node> matcher, int weight) {}

  private final List<Term> terms;

  private PreferredTerms(List<Term> terms) {
    this.terms = List.copyOf(terms);
  }

  /**
   * Compiles {@code list}; empty when the list is absent or empty. Throws
   * {@link IllegalArgumentException} naming the field ({@code field[i]...}) of an invalid term.
   */
  static Optional<PreferredTerms> compile(List<PreferredSchedulingTerm> list, String field) {
    if (list == null || list.isEmpty()) {
      return Optional.empty();
    }
    List<Term> out = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      PreferredSchedulingTerm t = list.get(i);
      int weight = t.getWeight() == null ? 0 : t.getWeight();
      NodeSelectorTerm preference = t.getPreference();
      if (weight == 0 || preference == null || isEmpty(preference)) {
        continue;
      }
      String path = field + "[" + i + "]";
      LabelSyntax.validateTerm(preference, path);
      out.add(new Term(NodeSelectorMatcher.compileTerm(preference, path), weight));
    }
    return Optional.of(new PreferredTerms(out));
  }

  /** The sum of the weights of the terms {@code node} matches. */
  long score(Node node) {
    long score = 0;
    for (Term t : terms) {
      if (t.matcher().test(node)) {
        score += t.weight();
      }
    }
    return score;
  }

  private static boolean isEmpty(NodeSelectorTerm term) {
    return (term.getMatchExpressions() == null || term.getMatchExpressions().isEmpty())
        && (term.getMatchFields() == null || term.getMatchFields().isEmpty());
  }
}
