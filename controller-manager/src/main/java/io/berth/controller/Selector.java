package io.berth.controller;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A parsed, validated label selector (apimachinery's {@code labels.Selector}), built from a workload's
 * {@code spec.selector} the way {@code metav1.LabelSelectorAsSelector} does: a missing selector selects nothing, an
 * empty one ({@code {}}) selects everything, {@code matchLabels} are equality requirements and
 * {@code matchExpressions} are {@code In}/{@code NotIn}/{@code Exists}/{@code DoesNotExist} requirements, all of which
 * must hold. Keys and values are checked as label keys and values; a bad selector is reported with the field that is
 * wrong. Immutable and thread-safe.
 */
public final class Selector {

  /** Selects no object (a missing selector). */
  public static final Selector NOTHING = new Selector(List.of(), true);
  /** Selects every object (an empty selector). */
  public static final Selector EVERYTHING = new Selector(List.of(), false);

  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private enum Operator { EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

  private record Requirement(String key, Operator operator, Set<String> values) {
    boolean matches(Map<String, String> labels) {
      String value = labels.get(key);
      return switch (operator) {
        case EQUALS, IN -> value != null && values.contains(value);
        case NOT_IN -> value == null || !values.contains(value);
        case EXISTS -> labels.containsKey(key);
        case DOES_NOT_EXIST -> !labels.containsKey(key);
      };
    }

    @Override
    public String toString() {
      return switch (operator) {
        case EQUALS -> key + "=" + values.iterator().next();
        case IN -> key + " in (" + String.join(",", values) + ")";
        case NOT_IN -> key + " notin (" + String.join(",", values) + ")";
        case EXISTS -> key;
        case DOES_NOT_EXIST -> "!" + key;
      };
    }
  }

  private final List<Requirement> requirements;
  private final boolean nothing;

  private Selector(List<Requirement> requirements, boolean nothing) {
    this.requirements = List.copyOf(requirements);
    this.nothing = nothing;
  }

  /**
   * Parses {@code selector} as {@code metav1.LabelSelectorAsSelector} does.
   *
   * @throws InvalidSelectorException naming the field ({@code matchExpressions[0].operator}) that is wrong
   */
  public static Selector fromLabelSelector(LabelSelector selector) throws InvalidSelectorException {
    if (selector == null) {
      return NOTHING;
    }
    Map<String, String> matchLabels = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
    List<LabelSelectorRequirement> expressions =
        selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
    if (matchLabels.isEmpty() && expressions.isEmpty()) {
      return EVERYTHING;
    }
    List<Requirement> requirements = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(matchLabels).entrySet()) {
      String field = "matchLabels[" + e.getKey() + "]";
      validateKey(field, e.getKey());
      validateValue(field, e.getValue());
      requirements.add(new Requirement(e.getKey(), Operator.EQUALS, Set.of(e.getValue())));
    }
    for (int i = 0; i < expressions.size(); i++) {
      requirements.add(requirement("matchExpressions[" + i + "]", expressions.get(i)));
    }
    return new Selector(requirements, false);
  }

  /** The selector matching exactly the labels in {@code set} ({@code labels.SelectorFromSet}); no validation. */
  public static Selector fromSet(Map<String, String> set) {
    List<Requirement> requirements = new ArrayList<>();
    if (set != null) {
      for (Map.Entry<String, String> e : new TreeMap<>(set).entrySet()) {
        requirements.add(new Requirement(e.getKey(), Operator.EQUALS, Set.of(e.getValue())));
      }
    }
    return new Selector(requirements, false);
  }

  private static Requirement requirement(String field, LabelSelectorRequirement expression)
      throws InvalidSelectorException {
    String key = expression.getKey();
    validateKey(field + ".key", key);
    List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
    String op = expression.getOperator();
    Operator operator;
    if ("In".equals(op)) {
      operator = Operator.IN;
    } else if ("NotIn".equals(op)) {
      operator = Operator.NOT_IN;
    } else if ("Exists".equals(op)) {
      operator = Operator.EXISTS;
    } else if ("DoesNotExist".equals(op)) {
      operator = Operator.DOES_NOT_EXIST;
    } else {
      throw new InvalidSelectorException(field + ".operator: Unsupported value: \"" + op
          + "\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
    }
    if ((operator == Operator.IN || operator == Operator.NOT_IN) && values.isEmpty()) {
      throw new InvalidSelectorException(field + ".values: Required value: for 'in', 'notin' operators, values set "
          + "can't be empty");
    }
    if ((operator == Operator.EXISTS || operator == Operator.DOES_NOT_EXIST) && !values.isEmpty()) {
      throw new InvalidSelectorException(field + ".values: Forbidden: values set must be empty for exists and does "
          + "not exist");
    }
    for (int i = 0; i < values.size(); i++) {
      validateValue(field + ".values[" + i + "]", values.get(i));
    }
    return new Requirement(key, operator, new TreeSet<>(values));
  }

  private static void validateKey(String field, String key) throws InvalidSelectorException {
    if (key == null || key.isEmpty()) {
      throw new InvalidSelectorException(field + ": Required value: a label key must be non-empty");
    }
    String name = key;
    int slash = key.indexOf('/');
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      name = key.substring(slash + 1);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        throw new InvalidSelectorException(field + ": Invalid value: \"" + key
            + "\": prefix part must be a lowercase RFC 1123 subdomain");
      }
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      throw new InvalidSelectorException(field + ": Invalid value: \"" + key + "\": name part must consist of "
          + "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
          + "(at most 63 characters)");
    }
  }

  private static void validateValue(String field, String value) throws InvalidSelectorException {
    if (value == null || value.isEmpty()) {
      return;
    }
    if (value.length() > 63 || !NAME.matcher(value).matches()) {
      throw new InvalidSelectorException(field + ": Invalid value: \"" + value + "\": a valid label value must be "
          + "63 characters or less and consist of alphanumeric characters, '-', '_' or '.', starting and ending "
          + "with an alphanumeric character");
    }
  }

  /** Whether an object with {@code labels} (null for none) is selected. */
  public boolean matches(Map<String, String> labels) {
    if (nothing) {
      return false;
    }
    Map<String, String> l = labels == null ? Map.of() : labels;
    for (Requirement r : requirements) {
      if (!r.matches(l)) {
        return false;
      }
    }
    return true;
  }

  /**
   * A label every object this selector matches carries, with the values it may take: the first equality or
   * {@code In} requirement in {@link #toString} order; empty when there is none (no requirement, or only
   * {@code NotIn}, {@code Exists} and {@code DoesNotExist}). Lets a caller narrow its candidates through a label
   * index before calling {@link #matches}, which still decides.
   */
  public Optional<RequiredLabel> requiredLabel() {
    for (Requirement r : requirements) {
      if (r.operator() == Operator.EQUALS || r.operator() == Operator.IN) {
        return Optional.of(new RequiredLabel(r.key(), r.values()));
      }
    }
    return Optional.empty();
  }

  /**
   * A label key and the values, one of which a selected object's label must have. Immutable.
   *
   * @param key the label key
   * @param values the allowed values, never empty
   */
  public record RequiredLabel(String key, Set<String> values) {
    public RequiredLabel {
      values = Set.copyOf(values);
    }
  }

  /** Whether this selector selects everything ({@code labels.Selector.Empty()}). */
  public boolean isEmpty() {
    return !nothing && requirements.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Selector s && s.nothing == nothing && s.requirements.equals(requirements);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requirements, nothing);
  }

  /** The selector in label-selector syntax ({@code app=web,tier in (a,b)}). */
  @Override
  public String toString() {
    if (nothing) {
      return "<none>";
    }
    List<String> parts = new ArrayList<>();
    for (Requirement r : requirements) {
      parts.add(r.toString());
    }
    return String.join(",", parts);
  }

  /** A label selector that cannot be parsed; the message names the field. */
  public static final class InvalidSelectorException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidSelectorException(String message) {
      super(message);
    }
  }
}
