package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * Resolves an {@link IntOrString} that is either an absolute count or a percentage ("25%") against a total,
 * as upstream {@code intstr.GetScaledValueFromIntOrPercent}.
 *
 * <p>Stateless and thread-safe. Every failure is an {@link IllegalArgumentException} whose message starts with
 * the field path the caller names (e.g. {@code spec.strategy.rollingUpdate.maxSurge: invalid value "abc%"}), so
 * the controller can surface it verbatim in an event or condition.
 */
public final class IntOrPercent {

  private IntOrPercent() {
  }

  /**
   * The value scaled against {@code total}: an int is returned as is; "N%" becomes N percent of total,
   * rounded up when {@code roundUp} and down otherwise.
   *
   * @param field the field path used as the prefix of any error message
   * @throws IllegalArgumentException when the value is null, a string without a trailing '%', or a percentage
   *                                  whose number does not parse
   */
  public static int scaledValue(IntOrString value, int total, boolean roundUp, String field) {
    Parsed parsed = parse(value, field);
    if (!parsed.percent()) {
      return parsed.number();
    }
    /*
     * Upstream computes ceil/floor(float64(n) * float64(total) / 100). The product of two int32 values is
     * exact in a float64, and a correctly rounded division by 100 of an integer k lands on an integer only
     * when k is a multiple of 100 (any other quotient is at least 0.01 away from an integer, far more than
     * half an ulp at these magnitudes). Exact integer floor/ceil division therefore gives identical results.
     */
    long product = (long) parsed.number() * total;
    long scaled = roundUp ? -Math.floorDiv(-product, 100L) : Math.floorDiv(product, 100L);
    return Math.toIntExact(scaled);
  }

  /** {@code value} when present, otherwise {@code fallback} (upstream {@code intstr.ValueOrDefault}). */
  public static IntOrString valueOrDefault(IntOrString value, IntOrString fallback) {
    return value == null ? fallback : value;
  }

  /** Whether the value is a string ending in '%' (whether or not its number parses). */
  public static boolean isPercent(IntOrString value) {
    return value != null && value.getValue() instanceof String s && s.endsWith("%");
  }

  /**
   * The number written in the value, without scaling: 5 for {@code 5} and for {@code "5%"}.
   *
   * @throws IllegalArgumentException as {@link #scaledValue}
   */
  public static int rawValue(IntOrString value, String field) {
    return parse(value, field).number();
  }

  private record Parsed(int number, boolean percent) {
  }

  private static Parsed parse(IntOrString value, String field) {
    if (value == null) {
      throw new IllegalArgumentException(field + ": nil value for IntOrString");
    }
    Object raw = value.getValue();
    if (raw instanceof Number n) {
      return new Parsed(n.intValue(), false);
    }
    if (raw instanceof String s) {
      if (!s.endsWith("%")) {
        throw new IllegalArgumentException(
            field + ": invalid value \"" + s + "\": string is not a percentage");
      }
      try {
        // Integer.parseInt accepts exactly what Go's strconv.Atoi accepts for int32: optional sign, digits.
        return new Parsed(Integer.parseInt(s.substring(0, s.length() - 1)), true);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(field + ": invalid value \"" + s + "\"");
      }
    }
    throw new IllegalArgumentException(field + ": invalid value " + raw + ": neither int nor percentage");
  }
}
