package io.berth.framework;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scheduler's feature gates, as kube-scheduler's {@code --feature-gates}: only the gates Berth
 * knows, with v1.36's defaults. A specification is a comma-separated list of
 * {@code Name=true|false}; an unknown name, a value other than true/false, or a change to a gate
 * locked to its default is refused, naming it. Immutable and thread-safe.
 *
 * <p>v1.36 defaults: {@link #SCHEDULER_ASYNC_PREEMPTION}, {@link #SCHEDULER_POP_FROM_BACKOFF_Q},
 * {@link #NOMINATED_NODE_NAME_FOR_EXPECTATION}, {@link #CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING}
 * {@link #OPPORTUNISTIC_BATCHING} and {@link #DRA_CONSUMABLE_CAPACITY} are beta and on; {@link #SCHEDULER_QUEUEING_HINTS} is GA and
 * locked to true; {@link #SCHEDULER_ASYNC_API_CALLS} is beta and off (on in 1.34 and 1.35.0, off again since 1.35.1).
 */
public final class FeatureGates {
  /** Victims of preemption are deleted off the scheduling thread (KEP-4832; beta, on, 1.33). */
  public static final String SCHEDULER_ASYNC_PREEMPTION = "SchedulerAsyncPreemption";
  /**
   * When activeQ is empty, pop takes backoffQ's head instead of waiting; backoffQ is ordered in
   * one-second windows by priority (KEP-5142; beta, on, 1.33).
   */
  public static final String SCHEDULER_POP_FROM_BACKOFF_Q = "SchedulerPopFromBackoffQ";
  /**
   * The scheduler records the expected placement in {@code status.nominatedNodeName} when the
   * binding cycle will take a while (Permit wait, PreBind work) (KEP-5278; beta, on, 1.35).
   */
  public static final String NOMINATED_NODE_NAME_FOR_EXPECTATION =
      "NominatedNodeNameForExpectation";
  /**
   * The API server clears {@code status.nominatedNodeName} when it binds a pod (KEP-5278; beta,
   * on, 1.35). Accepted by the scheduler for parity; the embedded cluster implements it.
   */
  public static final String CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING =
      "ClearingNominatedNodeNameAfterBinding";
  /**
   * Opportunistic batching of pods with equal scheduling signatures (KEP-5598; beta, on, 1.35):
   * a pod whose signature equals the previous pod's, when that pod's node now rejects it, first
   * tries the best remaining node of the previous cycle (see
   * {@link io.berth.framework.runtime.OpportunisticBatch}). Off: every pod runs a full cycle and
   * ties are broken by reservoir sampling, as before.
   */
  public static final String OPPORTUNISTIC_BATCHING = "OpportunisticBatching";
  /**
   * DRA devices with {@code allowMultipleAllocations} are shared by several claims, each taking
   * its {@code capacity.requests} (KEP-5075; beta, on, 1.36). Off: such a device is allocated
   * exclusively like any other, and a request with capacity requests is refused.
   */
  public static final String DRA_CONSUMABLE_CAPACITY = "DRAConsumableCapacity";
  /**
   * The scheduler's pod status patches and bindings go through an API dispatcher with its own
   * threads (KEP-5229; beta since 1.34, off by default since 1.35.1 and in 1.36): the scheduling
   * thread queues a failed pod's {@code PodScheduled} condition and nomination instead of waiting
   * for the write; calls for one pod run in order and a binding supersedes a pending patch. Off:
   * the writes are synchronous, as before.
   */
  public static final String SCHEDULER_ASYNC_API_CALLS = "SchedulerAsyncAPICalls";
  /** Queueing hints (KEP-4247): GA in 1.34, locked to true; setting it false is an error. */
  public static final String SCHEDULER_QUEUEING_HINTS = "SchedulerQueueingHints";

  private static final Map<String, Boolean> DEFAULTS = defaultsInOrder();
  private static final Set<String> LOCKED_TO_DEFAULT = Set.of(SCHEDULER_QUEUEING_HINTS);

  private final Map<String, Boolean> gates;

  private FeatureGates(Map<String, Boolean> gates) {
    this.gates = Map.copyOf(gates);
  }

  private static Map<String, Boolean> defaultsInOrder() {
    Map<String, Boolean> d = new LinkedHashMap<>();
    d.put(CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING, true);
    d.put(DRA_CONSUMABLE_CAPACITY, true);
    d.put(NOMINATED_NODE_NAME_FOR_EXPECTATION, true);
    d.put(OPPORTUNISTIC_BATCHING, true);
    d.put(SCHEDULER_ASYNC_API_CALLS, false);
    d.put(SCHEDULER_ASYNC_PREEMPTION, true);
    d.put(SCHEDULER_POP_FROM_BACKOFF_Q, true);
    d.put(SCHEDULER_QUEUEING_HINTS, true);
    return java.util.Collections.unmodifiableMap(d);
  }

  /** Every gate Berth knows with its v1.36 default, in name order. */
  public static Map<String, Boolean> known() {
    return java.util.Collections.unmodifiableMap(new TreeMap<>(DEFAULTS));
  }

  /** Every gate at its default. */
  public static FeatureGates defaults() {
    return new FeatureGates(DEFAULTS);
  }

  /**
   * The defaults overridden by {@code spec} ("A=true,B=false"; blank means none). Throws
   * {@link IllegalArgumentException} naming an unknown gate, a bad value or a locked gate.
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
      boolean on = Boolean.parseBoolean(value.toLowerCase(Locale.ROOT));
      boolean byDefault = DEFAULTS.get(name);
      if (LOCKED_TO_DEFAULT.contains(name) && on != byDefault) {
        throw new IllegalArgumentException("--feature-gates: cannot set feature gate " + name
            + " to " + on + ", feature is locked to " + byDefault);
      }
      gates.put(name, on);
    }
    return new FeatureGates(gates);
  }

  /** Whether the gate is on; false for a gate Berth does not know. */
  public boolean enabled(String name) {
    return gates.getOrDefault(name, false);
  }

  @Override
  public String toString() {
    return new TreeMap<>(gates).toString();
  }
}
