package io.berth.framework;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The scheduler's feature gates, as kube-scheduler's {@code --feature-gates}: only the gates Berth
 * honours are known, with v1.32's defaults ({@code SchedulerAsyncPreemption}, alpha, off). A
 * specification is a comma-separated list of {@code Name=true|false}; an unknown name or a value
 * other than true/false is refused, naming it. Immutable and thread-safe.
 */
public final class FeatureGates {
  /** Victims of preemption are deleted off the scheduling thread (KEP-4832). */
  public static final String SCHEDULER_ASYNC_PREEMPTION = "SchedulerAsyncPreemption";

  private static final Map<String, Boolean> DEFAULTS = Map.of(SCHEDULER_ASYNC_PREEMPTION, false);

  private final Map<String, Boolean> gates;

  private FeatureGates(Map<String, Boolean> gates) {
    this.gates = Map.copyOf(gates);
  }

  /** Every gate at its default. */
  public static FeatureGates defaults() {
    return new FeatureGates(DEFAULTS);
  }

  /**
   * The defaults overridden by {@code spec} ("A=true,B=false"; blank means none). Throws
   * {@link IllegalArgumentException} naming an unknown gate or a bad value.
   */
  public static FeatureGates parse(String spec) {
    Map<String, Boolean> gates = new LinkedHashMap<>(DEFAULTS);
    if (spec == null || spec.isBlank()) {
      return new FeatureGates(gates);
    }
    for (String part : spec.split(",")) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("--feature-gates: missing bool value for " + item);
      }
      String name = item.substring(0, eq).trim();
      String value = item.substring(eq + 1).trim();
      if (!DEFAULTS.containsKey(name)) {
        throw new IllegalArgumentException("--feature-gates: unrecognized feature gate: " + name
            + " (known: " + String.join(", ", DEFAULTS.keySet()) + ")");
      }
      if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
        throw new IllegalArgumentException("--feature-gates: invalid value of " + name + "="
            + value + ", err: must be true or false");
      }
      gates.put(name, Boolean.parseBoolean(value.toLowerCase(java.util.Locale.ROOT)));
    }
    return new FeatureGates(gates);
  }

  /** Whether the gate is on; false for a gate Berth does not know. */
  public boolean enabled(String name) {
    return gates.getOrDefault(name, false);
  }

  @Override
  public String toString() {
    return new java.util.TreeMap<>(gates).toString();
  }
}
