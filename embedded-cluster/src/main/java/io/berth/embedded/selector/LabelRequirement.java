package io.berth.embedded.selector;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One term of a label selector: a key, an operator and the operator's values, with apimachinery's
 * {@code labels.Requirement} matching rules. Instances are validated on construction (key and values
 * must be legal label key/values, the value count must suit the operator) and are immutable, hence
 * thread-safe.
 *
 * <p>Built by {@link LabelSelector}'s parsers; the embedded API server only reads them.
 *
 * @param key the label key, e.g. {@code app.kubernetes.io/name}
 * @param operator how the label's value relates to {@link #values()}
 * @param values the operator's values, sorted and without duplicates for set operators
 */
public record LabelRequirement(String key, Operator operator, List<String> values) {

  /** The selection operators of apimachinery's {@code selection} package. */
  public enum Operator {
    /** {@code key in (a,b)}: the key is present and its value is one of the values. */
    IN,
    /** {@code key notin (a,b)}: the key is absent, or present with a value not among the values. */
    NOT_IN,
    /** {@code key=v}. */
    EQUALS,
    /** {@code key==v}, the same as {@link #EQUALS}. */
    DOUBLE_EQUALS,
    /** {@code key!=v}: the key is absent, or present with another value. */
    NOT_EQUALS,
    /** {@code key}: the key is present. */
    EXISTS,
    /** {@code !key}: the key is absent. */
    DOES_NOT_EXIST,
    /** {@code key>n}: the key is present and its value is an integer greater than n. */
    GREATER_THAN,
    /** {@code key<n}: the key is present and its value is an integer less than n. */
    LESS_THAN
  }

  /**
   * Creates a requirement, checking it as apimachinery's {@code NewRequirement} does.
   *
   * @throws IllegalArgumentException if the key or a value is not a legal label key/value, or the number
   *     of values does not suit the operator
   */
  public LabelRequirement {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operator, "operator");
    values = List.copyOf(values);
    LabelSyntax.validateKey(key).ifPresent(reason -> {
      throw new IllegalArgumentException("key: Invalid value: \"" + key + "\": " + reason);
    });
    switch (operator) {
      case IN, NOT_IN -> {
        if (values.isEmpty()) {
          throw new IllegalArgumentException(
              "values: Invalid value: " + values + ": for 'in', 'notin' operators, values set can't be empty");
        }
      }
      case EQUALS, DOUBLE_EQUALS, NOT_EQUALS -> {
        if (values.size() != 1) {
          throw new IllegalArgumentException(
              "values: Invalid value: " + values + ": exact-match compatibility requires one single value");
        }
      }
      case EXISTS, DOES_NOT_EXIST -> {
        if (!values.isEmpty()) {
          throw new IllegalArgumentException("values: Invalid value: " + values
              + ": values set must be empty for exists and does not exist");
        }
      }
      case GREATER_THAN, LESS_THAN -> {
        if (values.size() != 1) {
          throw new IllegalArgumentException(
              "values: Invalid value: " + values + ": for 'Gt', 'Lt' operators, exactly one value is required");
        }
        if (parseLong(values.get(0)) == null) {
          throw new IllegalArgumentException("values[0]: Invalid value: \"" + values.get(0)
              + "\": for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
      default -> throw new IllegalStateException("unhandled operator " + operator);
    }
    for (int i = 0; i < values.size(); i++) {
      String value = values.get(i);
      int index = i;
      LabelSyntax.validateValue(value).ifPresent(reason -> {
        throw new IllegalArgumentException(
            "values[" + index + "][" + key + "]: Invalid value: \"" + value + "\": " + reason);
      });
    }
  }

  /**
   * Whether the labels satisfy this requirement. {@code !=} and {@code notin} match when the key is
   * absent; {@code >} and {@code <} never match a non-integer label value.
   */
  public boolean matches(Map<String, String> labels) {
    String actual = labels.get(key);
    return switch (operator) {
      case IN, EQUALS, DOUBLE_EQUALS -> actual != null && values.contains(actual);
      case NOT_IN, NOT_EQUALS -> actual == null || !values.contains(actual);
      case EXISTS -> actual != null;
      case DOES_NOT_EXIST -> actual == null;
      case GREATER_THAN, LESS_THAN -> {
        Long labelValue = actual == null ? null : parseLong(actual);
        if (labelValue == null) {
          yield false;
        }
        long bound = parseLong(values.get(0));
        yield operator == Operator.GREATER_THAN ? labelValue > bound : labelValue < bound;
      }
    };
  }

  /** The requirement in the query-string syntax, e.g. {@code env in (dev,prod)} or {@code !canary}. */
  @Override
  public String toString() {
    return switch (operator) {
      case EXISTS -> key;
      case DOES_NOT_EXIST -> "!" + key;
      case EQUALS -> key + "=" + values.get(0);
      case DOUBLE_EQUALS -> key + "==" + values.get(0);
      case NOT_EQUALS -> key + "!=" + values.get(0);
      case GREATER_THAN -> key + ">" + values.get(0);
      case LESS_THAN -> key + "<" + values.get(0);
      case IN -> key + " in (" + String.join(",", values.stream().sorted().toList()) + ")";
      case NOT_IN -> key + " notin (" + String.join(",", values.stream().sorted().toList()) + ")";
    };
  }

  private static Long parseLong(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
