package io.berth.plugins.defaultpreemption;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * DefaultPreemption's arguments, as kube-scheduler's {@code DefaultPreemptionArgs}: how many
 * nodes a dry run must find as candidates at least, as a percentage of the nodes preemption may
 * help on ({@code minCandidateNodesPercentage}, default 10, valid range [0, 100]) and as an
 * absolute number ({@code minCandidateNodesAbsolute}, default 100, at least 0); the two may not
 * both be zero. Immutable; the constructor validates as upstream's
 * {@code ValidateDefaultPreemptionArgs}.
 */
public record DefaultPreemptionArgs(int minCandidateNodesPercentage,
    int minCandidateNodesAbsolute) {
  public static final int DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10;
  public static final int DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100;

  static final String PERCENTAGE = "minCandidateNodesPercentage";
  static final String ABSOLUTE = "minCandidateNodesAbsolute";
  /** Keys a pluginConfig args map may carry besides the fields (the object's type meta). */
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind");

  /** The defaults: 10% of the potential nodes, at least 100 nodes. */
  public static final DefaultPreemptionArgs DEFAULTS = new DefaultPreemptionArgs(
      DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE);

  /** Validates the ranges; throws {@link IllegalArgumentException} naming each bad field. */
  public DefaultPreemptionArgs {
    List<String> errors = new ArrayList<>();
    if (minCandidateNodesPercentage < 0 || minCandidateNodesPercentage > 100) {
      errors.add(invalid(PERCENTAGE, minCandidateNodesPercentage, "not in valid range [0, 100]"));
    }
    if (minCandidateNodesAbsolute < 0) {
      errors.add(invalid(ABSOLUTE, minCandidateNodesAbsolute, "not in valid range [0, inf)"));
    }
    if (minCandidateNodesPercentage == 0 && minCandidateNodesAbsolute == 0) {
      errors.add(invalid(PERCENTAGE, 0, "cannot be zero at the same time as " + ABSOLUTE));
      errors.add(invalid(ABSOLUTE, 0, "cannot be zero at the same time as " + PERCENTAGE));
    }
    throwIfAny(errors);
  }

  /**
   * Parses pluginConfig args (parsed YAML); missing or null fields take their defaults. Throws
   * {@link IllegalArgumentException} naming the field for unknown fields, values that are not
   * 32-bit integers and values out of range.
   */
  public static DefaultPreemptionArgs parse(Map<String, Object> args) {
    if (args == null || args.isEmpty()) {
      return DEFAULTS;
    }
    List<String> errors = new ArrayList<>();
    for (String key : args.keySet()) {
      if (!PERCENTAGE.equals(key) && !ABSOLUTE.equals(key) && !TYPE_META.contains(key)) {
        errors.add("unknown field \"" + key + "\"");
      }
    }
    int percentage = integer(args, PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, errors);
    int absolute = integer(args, ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE, errors);
    throwIfAny(errors);
    return new DefaultPreemptionArgs(percentage, absolute);
  }

  private static int integer(Map<String, Object> args, String key, int defaultValue,
      List<String> errors) {
    Object raw = args.get(key);
    if (raw == null) {
      return defaultValue;
    }
    if (raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
      return ((Number) raw).intValue();
    }
    if ((raw instanceof Long || raw instanceof BigInteger)
        && BigInteger.valueOf(Integer.MIN_VALUE).compareTo(asBig(raw)) <= 0
        && BigInteger.valueOf(Integer.MAX_VALUE).compareTo(asBig(raw)) >= 0) {
      return ((Number) raw).intValue();
    }
    errors.add(invalid(key, raw, "must be a 32-bit integer"));
    return defaultValue;
  }

  private static BigInteger asBig(Object raw) {
    return raw instanceof BigInteger b ? b : BigInteger.valueOf(((Number) raw).longValue());
  }

  private static String invalid(String field, Object value, String detail) {
    String rendered = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return field + ": Invalid value: " + rendered + ": " + detail;
  }

  /** One error as itself, several as upstream's aggregate ("[e1, e2]"). */
  private static void throwIfAny(List<String> errors) {
    if (errors.size() == 1) {
      throw new IllegalArgumentException(errors.get(0));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
    }
  }
}
