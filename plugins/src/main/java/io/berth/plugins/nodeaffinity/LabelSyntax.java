package io.berth.plugins.nodeaffinity;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The label key and value syntax that upstream's {@code labels.NewRequirement} enforces on node
 * selector expressions, which {@code NodeSelectorMatcher} does not check: keys are qualified names
 * (optional DNS-subdomain prefix and '/', then at most 63 alphanumerics, '-', '_' or '.', starting
 * and ending alphanumeric) and values are empty or such a name part. Stateless and thread-safe;
 * failures raise {@link IllegalArgumentException} naming the field.
 */
final class LabelSyntax {
  private static final Pattern NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final int MAX_NAME_LENGTH = 63;
  private static final int MAX_PREFIX_LENGTH = 253;
  private static final String NAME_PART_RULE = "must consist of alphanumeric characters, '-', '_'"
      + " or '.', and must start and end with an alphanumeric character";

  private LabelSyntax() {}

  /** Checks every non-empty term of {@code selector}, as upstream parses only those. */
  static void validateSelector(NodeSelector selector, String field) {
    List<NodeSelectorTerm> terms = selector.getNodeSelectorTerms();
    if (terms == null) {
      return;
    }
    for (int i = 0; i < terms.size(); i++) {
      validateTerm(terms.get(i), field + ".nodeSelectorTerms[" + i + "]");
    }
  }

  /** Checks the keys and values of the term's label expressions. */
  static void validateTerm(NodeSelectorTerm term, String field) {
    List<NodeSelectorRequirement> exprs = term.getMatchExpressions();
    if (exprs == null) {
      return;
    }
    for (int i = 0; i < exprs.size(); i++) {
      NodeSelectorRequirement r = exprs.get(i);
      String path = field + ".matchExpressions[" + i + "]";
      if (r.getKey() != null && !r.getKey().isEmpty()) {
        validateKey(r.getKey(), path + ".key");
      }
      List<String> values = r.getValues();
      if (values != null) {
        for (int j = 0; j < values.size(); j++) {
          validateValue(values.get(j), path + ".values[" + j + "]");
        }
      }
    }
  }

  private static void validateKey(String key, String field) {
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        throw invalid(field, key, "prefix part must be non-empty");
      }
      if (prefix.length() > MAX_PREFIX_LENGTH) {
        throw invalid(field, key, "prefix part must be no more than 253 characters");
      }
      if (!DNS_SUBDOMAIN.matcher(prefix).matches()) {
        throw invalid(field, key, "prefix part a lowercase RFC 1123 subdomain must consist of lower"
            + " case alphanumeric characters, '-' or '.', and must start and end with an"
            + " alphanumeric character");
      }
    } else {
      throw invalid(field, key, "a qualified name " + NAME_PART_RULE
          + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    }
    if (name.isEmpty()) {
      throw invalid(field, key, "name part must be non-empty");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw invalid(field, key, "name part must be no more than 63 characters");
    }
    if (!NAME_PART.matcher(name).matches()) {
      throw invalid(field, key, "name part " + NAME_PART_RULE);
    }
  }

  private static void validateValue(String value, String field) {
    String v = value == null ? "" : value;
    if (v.length() > MAX_NAME_LENGTH) {
      throw invalid(field, v, "must be no more than 63 characters");
    }
    if (!v.isEmpty() && !NAME_PART.matcher(v).matches()) {
      throw invalid(field, v, "a valid label must be an empty string or " + NAME_PART_RULE);
    }
  }

  private static IllegalArgumentException invalid(String field, String value, String detail) {
    return new IllegalArgumentException(field + ": Invalid value: \"" + value + "\": " + detail);
  }
}
