package io.berth.plugins.interpodaffinity;

import java.math.BigInteger;
import java.util.Map;
import java.util.Set;

/**
 * The InterPodAffinity plugin's arguments, as kube-scheduler's {@code InterPodAffinityArgs}:
 * {@code hardPodAffinityWeight} (default 1, valid range [0, 100]) weighs existing pods' required
 * affinity terms that the incoming pod satisfies; {@code ignorePreferredTermsOfExistingPods}
 * (default false) skips scoring when the incoming pod has no preferred terms. Immutable.
 */
public record InterPodAffinityArgs(int hardPodAffinityWeight,
    boolean ignorePreferredTermsOfExistingPods) {
  public static final int DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1;
  static final int MIN_HARD_POD_AFFINITY_WEIGHT = 0;
  static final int MAX_HARD_POD_AFFINITY_WEIGHT = 100;

  private static final String HARD_WEIGHT = "hardPodAffinityWeight";
  private static final String IGNORE_PREFERRED = "ignorePreferredTermsOfExistingPods";
  /** Keys a pluginConfig args map may carry besides the fields (the object's type meta). */
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind");

  /** The defaults: weight 1, preferred terms of existing pods honoured. */
  public static final InterPodAffinityArgs DEFAULTS =
      new InterPodAffinityArgs(DEFAULT_HARD_POD_AFFINITY_WEIGHT, false);

  /** Validates as upstream's {@code ValidateInterPodAffinityArgs}. */
  public InterPodAffinityArgs {
    if (hardPodAffinityWeight < MIN_HARD_POD_AFFINITY_WEIGHT
        || hardPodAffinityWeight > MAX_HARD_POD_AFFINITY_WEIGHT) {
      throw outOfRange(hardPodAffinityWeight);
    }
  }

  /**
   * Parses pluginConfig args (parsed YAML); missing or null fields take their defaults. Throws
   * {@link IllegalArgumentException} naming the field for wrong types, out-of-range weights and
   * unknown fields.
   */
  public static InterPodAffinityArgs parse(Map<String, Object> args) {
    if (args == null || args.isEmpty()) {
      return DEFAULTS;
    }
    for (String key : args.keySet()) {
      if (!HARD_WEIGHT.equals(key) && !IGNORE_PREFERRED.equals(key) && !TYPE_META.contains(key)) {
        throw new IllegalArgumentException("unknown field \"" + key + "\"");
      }
    }
    int weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT;
    Object rawWeight = args.get(HARD_WEIGHT);
    if (rawWeight != null) {
      long value = integer(rawWeight);
      if (value < MIN_HARD_POD_AFFINITY_WEIGHT || value > MAX_HARD_POD_AFFINITY_WEIGHT) {
        throw outOfRange(value);
      }
      weight = (int) value;
    }
    boolean ignore = false;
    Object rawIgnore = args.get(IGNORE_PREFERRED);
    if (rawIgnore != null) {
      if (!(rawIgnore instanceof Boolean b)) {
        throw new IllegalArgumentException(IGNORE_PREFERRED + ": Invalid value: "
            + quoted(rawIgnore) + ": must be a boolean");
      }
      ignore = b;
    }
    return new InterPodAffinityArgs(weight, ignore);
  }

  private static long integer(Object raw) {
    if (raw instanceof Integer || raw instanceof Long || raw instanceof Short
        || raw instanceof Byte) {
      return ((Number) raw).longValue();
    }
    if (raw instanceof BigInteger big && big.bitLength() < 64) {
      return big.longValue();
    }
    if (raw instanceof BigInteger) {
      throw outOfRange(raw);
    }
    throw new IllegalArgumentException(HARD_WEIGHT + ": Invalid value: " + quoted(raw)
        + ": must be an integer");
  }

  private static IllegalArgumentException outOfRange(Object value) {
    return new IllegalArgumentException(HARD_WEIGHT + ": Invalid value: " + value
        + ": not in valid range [" + MIN_HARD_POD_AFFINITY_WEIGHT + ", "
        + MAX_HARD_POD_AFFINITY_WEIGHT + "]");
  }

  private static String quoted(Object value) {
    return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
  }
}
