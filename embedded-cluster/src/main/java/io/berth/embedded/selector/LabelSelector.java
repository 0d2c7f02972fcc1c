package io.berth.embedded.selector;

import io.berth.embedded.selector.LabelRequirement.Operator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * A label selector with kube-apiserver semantics: the AND of {@link LabelRequirement}s, or the special
 * selector that matches nothing. Built from the query-string form the API takes as
 * {@code labelSelector=} ({@link #parse}) or from a {@code metav1.LabelSelector} object such as a
 * ReplicaSet's {@code spec.selector} or a PodDisruptionBudget's selector ({@link #fromLabelSelector}).
 *
 * <p>Malformed input raises {@link IllegalArgumentException} whose message names the offending part;
 * the embedded API server answers it with 400 Bad Request. Instances are immutable and thread-safe.
 */
public final class LabelSelector {

  private static final LabelSelector EVERYTHING = new LabelSelector(List.of(), false);
  private static final LabelSelector NOTHING = new LabelSelector(List.of(), true);

  private final List<LabelRequirement> requirements; // sorted by key (stable), immutable
  private final boolean matchesNothing;

  private LabelSelector(List<LabelRequirement> requirements, boolean matchesNothing) {
    List<LabelRequirement> sorted = new ArrayList<>(requirements);
    sorted.sort(Comparator.comparing(LabelRequirement::key));
    this.requirements = List.copyOf(sorted);
    this.matchesNothing = matchesNothing;
  }

  /** The selector that matches every label set (the empty query string). */
  public static LabelSelector everything() {
    return EVERYTHING;
  }

  /** The selector that matches no label set (a null {@code metav1.LabelSelector}). */
  public static LabelSelector nothing() {
    return NOTHING;
  }

  /** A selector that is the AND of the given requirements. */
  public static LabelSelector of(List<LabelRequirement> requirements) {
    return requirements.isEmpty() ? EVERYTHING : new LabelSelector(requirements, false);
  }

  /**
   * Parses the query-string form, e.g. {@code app=web,tier!=db,env in (dev, prod),!canary}. Whitespace
   * around tokens is ignored; the empty (or blank) string selects everything.
   *
   * @throws IllegalArgumentException naming the offending token, key or value
   */
  public static LabelSelector parse(String selector) {
    Objects.requireNonNull(selector, "selector");
    return of(LabelSelectorParser.parse(selector));
  }

  /**
   * Builds a selector from a {@code metav1.LabelSelector}-shaped JSON object, as apimachinery's
   * {@code LabelSelectorAsSelector} does: a missing or JSON-null selector matches nothing, an empty one
   * matches everything, each {@code matchLabels} entry is an equality and each {@code matchExpressions}
   * entry an {@code In}/{@code NotIn}/{@code Exists}/{@code DoesNotExist} requirement; all are ANDed.
   *
   * @param selector the selector object, or {@code null}, a missing node or a JSON null
   * @throws IllegalArgumentException on an unknown operator or an invalid key, value or value count
   */
  public static LabelSelector fromLabelSelector(JsonNode selector) {
    if (selector == null || selector.isMissingNode() || selector.isNull()) {
      return NOTHING;
    }
    if (!selector.isObject()) {
      throw new IllegalArgumentException("label selector must be an object, got " + selector.getNodeType());
    }
    List<LabelRequirement> requirements = new ArrayList<>();
    JsonNode matchLabels = selector.path("matchLabels");
    if (matchLabels.isObject()) {
      for (Map.Entry<String, JsonNode> entry : matchLabels.properties()) {
        requirements.add(new LabelRequirement(entry.getKey(), Operator.EQUALS, List.of(entry.getValue().asString())));
      }
    }
    JsonNode matchExpressions = selector.path("matchExpressions");
    if (matchExpressions.isArray()) {
      for (JsonNode expression : matchExpressions) {
        requirements.add(expressionRequirement(expression));
      }
    }
    return requirements.isEmpty() ? EVERYTHING : new LabelSelector(requirements, false);
  }

  private static LabelRequirement expressionRequirement(JsonNode expression) {
    String operatorName = expression.path("operator").asString("");
    Operator operator = switch (operatorName) {
      case "In" -> Operator.IN;
      case "NotIn" -> Operator.NOT_IN;
      case "Exists" -> Operator.EXISTS;
      case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
      default -> throw new IllegalArgumentException(
          "\"" + operatorName + "\" is not a valid label selector operator");
    };
    List<String> values = new ArrayList<>();
    for (JsonNode value : expression.path("values")) {
      values.add(value.asString());
    }
    return new LabelRequirement(expression.path("key").asString(""), operator, values);
  }

  /** Whether the labels satisfy every requirement. {@link #nothing()} matches no label set. */
  public boolean matches(Map<String, String> labels) {
    if (matchesNothing) {
      return false;
    }
    for (LabelRequirement requirement : requirements) {
      if (!requirement.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /** Whether this selector places no restriction (true for {@link #everything()}, false for nothing). */
  public boolean isEmpty() {
    return !matchesNothing && requirements.isEmpty();
  }

  /** Whether this is the selector that matches nothing. */
  public boolean matchesNothing() {
    return matchesNothing;
  }

  /** The requirements, sorted by key; empty for both everything and nothing. */
  public List<LabelRequirement> requirements() {
    return requirements;
  }

  /** The canonical query-string form (requirements sorted by key); empty for everything and nothing. */
  @Override
  public String toString() {
    return requirements.stream().map(LabelRequirement::toString).collect(Collectors.joining(","));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LabelSelector other
        && matchesNothing == other.matchesNothing
        && requirements.equals(other.requirements);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requirements, matchesNothing);
  }
}
