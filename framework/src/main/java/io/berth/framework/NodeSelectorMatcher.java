package io.berth.framework;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A compiled {@code v1.NodeSelector}: a node matches when any term matches; a term matches when
 * all its {@code matchExpressions} (on labels: In, NotIn, Exists, DoesNotExist, Gt, Lt) and all
 * its {@code matchFields} (only {@code metadata.name}, In/NotIn) hold; a term with neither matches
 * nothing. Immutable and thread-safe. {@link #compile} raises {@link IllegalArgumentException}
 * naming the field of an invalid requirement.
 */
public final class NodeSelectorMatcher {
  /** The only field a matchFields requirement may name. */
  public static final String NODE_NAME_FIELD = "metadata.name";

  private final List<Predicate<Node>> terms;

  private NodeSelectorMatcher(List<Predicate<Node>> terms) {
    this.terms = List.copyOf(terms);
  }

  public static NodeSelectorMatcher compile(NodeSelector selector, String field) {
    List<Predicate<Node>> terms = new ArrayList<>();
    List<NodeSelectorTerm> list = selector.getNodeSelectorTerms() == null ? List.of()
        : selector.getNodeSelectorTerms();
    for (int i = 0; i < list.size(); i++) {
      terms.add(compileTerm(list.get(i), field + ".nodeSelectorTerms[" + i + "]"));
    }
    return new NodeSelectorMatcher(terms);
  }

  /** A single term compiled on its own (preferred scheduling terms). */
  public static Predicate<Node> compileTerm(NodeSelectorTerm term, String field) {
    List<Predicate<Node>> parts = new ArrayList<>();
    List<NodeSelectorRequirement> exprs = term.getMatchExpressions() == null ? List.of()
        : term.getMatchExpressions();
    for (int i = 0; i < exprs.size(); i++) {
      Predicate<Map<String, String>> r = labelRequirement(exprs.get(i),
          field + ".matchExpressions[" + i + "]");
      parts.add(node -> r.test(labelsOf(node)));
    }
    List<NodeSelectorRequirement> fields = term.getMatchFields() == null ? List.of()
        : term.getMatchFields();
    for (int i = 0; i < fields.size(); i++) {
      parts.add(fieldRequirement(fields.get(i), field + ".matchFields[" + i + "]"));
    }
    if (parts.isEmpty()) {
      return node -> false;
    }
    return node -> {
      for (Predicate<Node> p : parts) {
        if (!p.test(node)) {
          return false;
        }
      }
      return true;
    };
  }

  public boolean matches(Node node) {
    for (Predicate<Node> term : terms) {
      if (term.test(node)) {
        return true;
      }
    }
    return false;
  }

  static Map<String, String> labelsOf(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }

  private static Predicate<Map<String, String>> labelRequirement(NodeSelectorRequirement r,
      String field) {
    String key = r.getKey();
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(field + ".key: Required value");
    }
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator() == null ? "" : r.getOperator();
    switch (op) {
      case "In", "NotIn" -> {
        if (values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: Required value: must be specified"
              + " when `operator` is 'In' or 'NotIn'");
        }
        Set<String> set = Set.copyOf(values);
        return "In".equals(op) ? l -> l.containsKey(key) && set.contains(l.get(key))
            : l -> !l.containsKey(key) || !set.contains(l.get(key));
      }
      case "Exists", "DoesNotExist" -> {
        if (!values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: Forbidden: may not be specified"
              + " when `operator` is 'Exists' or 'DoesNotExist'");
        }
        return "Exists".equals(op) ? l -> l.containsKey(key) : l -> !l.containsKey(key);
      }
      case "Gt", "Lt" -> {
        if (values.size() != 1) {
          throw new IllegalArgumentException(field + ".values: Required value: must be specified"
              + " single value when `operator` is 'Lt' or 'Gt'");
        }
        long bound;
        try {
          bound = Long.parseLong(values.get(0));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(field + ".values[0]: Invalid value: \"" + values.get(0)
              + "\": must be an integer when `operator` is 'Lt' or 'Gt'");
        }
        boolean gt = "Gt".equals(op);
        return l -> {
          String v = l.get(key);
          if (v == null) {
            return false;
          }
          long n;
          try {
            n = Long.parseLong(v);
          } catch (NumberFormatException e) {
            return false;
          }
          return gt ? n > bound : n < bound;
        };
      }
      default -> throw new IllegalArgumentException(field + ".operator: Unsupported value: \"" + op
          + "\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\"");
    }
  }

  private static Predicate<Node> fieldRequirement(NodeSelectorRequirement r, String field) {
    if (!NODE_NAME_FIELD.equals(r.getKey())) {
      throw new IllegalArgumentException(field + ".key: Invalid value: \"" + r.getKey()
          + "\": not a valid field selector key");
    }
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator() == null ? "" : r.getOperator();
    if (!"In".equals(op) && !"NotIn".equals(op)) {
      throw new IllegalArgumentException(field + ".operator: Invalid value: \"" + op
          + "\": not a valid selector operator");
    }
    if (values.size() != 1) {
      throw new IllegalArgumentException(field + ".values: Required value: must be only one value"
          + " when `operator` is 'In' or 'NotIn' for node field selector");
    }
    String name = values.get(0);
    boolean in = "In".equals(op);
    return node -> name.equals(node.getMetadata().getName()) == in;
  }
}
