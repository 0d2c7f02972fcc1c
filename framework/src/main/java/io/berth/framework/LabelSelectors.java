package io.berth.framework;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Compiles a {@code metav1.LabelSelector} into a {@link LabelMatcher} with the semantics of
 * upstream's {@code LabelSelectorAsSelector}: a null selector matches nothing, an empty one
 * everything; {@code matchLabels} and every {@code matchExpressions} entry must all hold.
 * Stateless and thread-safe. Invalid selectors raise {@link IllegalArgumentException} naming the
 * field (the caller passes the selector's path, e.g. {@code spec.affinity...labelSelector}).
 */
public final class LabelSelectors {
  private LabelSelectors() {}

  public static LabelMatcher compile(LabelSelector selector, String field) {
    if (selector == null) {
      return LabelMatcher.NOTHING;
    }
    List<Predicate<Map<String, String>>> requirements = new ArrayList<>();
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        String key = e.getKey();
        String value = e.getValue() == null ? "" : e.getValue();
        requirements.add(labels -> value.equals(labels.get(key)));
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (int i = 0; i < expressions.size(); i++) {
        requirements.add(requirement(expressions.get(i), field + ".matchExpressions[" + i + "]"));
      }
    }
    if (requirements.isEmpty()) {
      return LabelMatcher.EVERYTHING;
    }
    return labels -> {
      Map<String, String> set = labels == null ? Map.of() : labels;
      for (Predicate<Map<String, String>> r : requirements) {
        if (!r.test(set)) {
          return false;
        }
      }
      return true;
    };
  }

  /** A matcher for exact {@code key=value} pairs (a Service's or ReplicaSet's selector map). */
  public static LabelMatcher fromMap(Map<String, String> matchLabels) {
    if (matchLabels == null || matchLabels.isEmpty()) {
      return LabelMatcher.EVERYTHING;
    }
    Map<String, String> copy = Map.copyOf(matchLabels);
    return labels -> {
      for (Map.Entry<String, String> e : copy.entrySet()) {
        if (labels == null || !e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    };
  }

  private static Predicate<Map<String, String>> requirement(LabelSelectorRequirement r, String field) {
    String key = r.getKey();
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException(field + ".key: Required value");
    }
    String op = r.getOperator() == null ? "" : r.getOperator();
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    switch (op) {
      case "In", "NotIn" -> {
        if (values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: Required value: must be specified"
              + " when `operator` is 'In' or 'NotIn'");
        }
        Set<String> set = Set.copyOf(values);
        return "In".equals(op)
            ? labels -> labels.containsKey(key) && set.contains(labels.get(key))
            : labels -> !labels.containsKey(key) || !set.contains(labels.get(key));
      }
      case "Exists", "DoesNotExist" -> {
        if (!values.isEmpty()) {
          throw new IllegalArgumentException(field + ".values: Forbidden: may not be specified"
              + " when `operator` is 'Exists' or 'DoesNotExist'");
        }
        return "Exists".equals(op) ? labels -> labels.containsKey(key)
            : labels -> !labels.containsKey(key);
      }
      default -> throw new IllegalArgumentException(field + ".operator: Unsupported value: \""
          + op + "\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
    }
  }
}
