package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Validation and matching of a metav1 LabelSelector as the Deployment controller needs them (apimachinery's
 * ValidateLabelSelector and LabelSelectorAsSelector semantics). Messages follow field.Error's
 * "path: Kind: detail" form.
 *
 * <p>Stateless and thread-safe.
 */
final class LabelSelectors {

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private LabelSelectors() {
  }

  /** No requirement at all: a selector that selects everything. */
  static boolean isEmpty(LabelSelector selector) {
    return size(selector.getMatchLabels()) + size(selector.getMatchExpressions()) == 0;
  }

  /** Problems with the selector, each naming its field under {@code path}; empty when valid. */
  static List<String> validate(LabelSelector selector, String path) {
    List<String> problems = new ArrayList<>();
    Map<String, String> matchLabels = selector.getMatchLabels();
    if (matchLabels != null) {
      for (Map.Entry<String, String> e : matchLabels.entrySet()) {
        validateKey(e.getKey(), path + ".matchLabels", problems);
        validateValue(e.getValue(), path + ".matchLabels", problems);
      }
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    if (expressions != null) {
      for (int i = 0; i < expressions.size(); i++) {
        String at = path + ".matchExpressions[" + i + "]";
        LabelSelectorRequirement r = expressions.get(i);
        String op = r.getOperator() == null ? "" : r.getOperator();
        int values = size(r.getValues());
        switch (op) {
          case "In", "NotIn" -> {
            if (values == 0) {
              problems.add(at + ".values: Required value: must be specified when `operator` is "
                  + "'In' or 'NotIn'");
            }
          }
          case "Exists", "DoesNotExist" -> {
            if (values > 0) {
              problems.add(at + ".values: Forbidden: may not be specified when `operator` is "
                  + "'Exists' or 'DoesNotExist'");
            }
          }
          default -> problems.add(at + ".operator: Invalid value: \"" + op
              + "\": not a valid selector operator");
        }
        validateKey(r.getKey(), at + ".key", problems);
        if (r.getValues() != null) {
          for (String v : r.getValues()) {
            validateValue(v, at + ".values", problems);
          }
        }
      }
    }
    return problems;
  }

  /** Whether {@code labels} satisfy every requirement; call only on a selector {@link #validate} accepts. */
  static boolean matches(LabelSelector selector, Map<String, String> labels) {
    Map<String, String> actual = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(actual.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String value = actual.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        boolean ok = switch (r.getOperator()) {
          case "In" -> value != null && values.contains(value);
          case "NotIn" -> value == null || !values.contains(value);
          case "Exists" -> value != null;
          case "DoesNotExist" -> value == null;
          default -> false;
        };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  private static void validateKey(String key, String path, List<String> problems) {
    String k = key == null ? "" : key;
    String name = k;
    int slash = k.indexOf('/');
    if (slash >= 0) {
      String prefix = k.substring(0, slash);
      name = k.substring(slash + 1);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        problems.add(path + ": Invalid value: \"" + k + "\": prefix part must be a lowercase RFC 1123 "
            + "subdomain");
        return;
      }
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      problems.add(path + ": Invalid value: \"" + k + "\": name part must consist of alphanumeric "
          + "characters, '-', '_' or '.', must start and end with an alphanumeric character, and be at "
          + "most 63 characters");
    }
  }

  private static void validateValue(String value, String path, List<String> problems) {
    String v = value == null ? "" : value;
    if (!v.isEmpty() && (v.length() > 63 || !NAME.matcher(v).matches())) {
      problems.add(path + ": Invalid value: \"" + v + "\": a valid label must be an empty string or "
          + "consist of alphanumeric characters, '-', '_' or '.', must start and end with an "
          + "alphanumeric character, and be at most 63 characters");
    }
  }

  private static int size(Map<?, ?> m) {
    return m == null ? 0 : m.size();
  }

  private static int size(List<?> l) {
    return l == null ? 0 : l.size();
  }
}
