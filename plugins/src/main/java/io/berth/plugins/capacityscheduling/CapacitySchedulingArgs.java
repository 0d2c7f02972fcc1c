package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.helper.PluginArgFields.integer;
import static io.berth.plugins.helper.PluginArgFields.invalid;
import static io.berth.plugins.helper.PluginArgFields.rejectUnknown;
import static io.berth.plugins.helper.PluginArgFields.throwIfAny;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CapacityScheduling's arguments: how many nodes the reclaim dry run looks for, as DefaultPreemptionArgs
 * ({@code minCandidateNodesPercentage}, 0–100, default 10; {@code minCandidateNodesAbsolute}, at least 0, default
 * 100; not both 0), and how often {@code status.used} and the quota metrics are brought up to date
 * ({@code statusUpdatePeriodSeconds}, at least 1, default 1). Immutable; the constructor validates.
 */
public record CapacitySchedulingArgs(int minCandidateNodesPercentage, int minCandidateNodesAbsolute,
    int statusUpdatePeriodSeconds) {
  static final String PERCENTAGE = "minCandidateNodesPercentage";
  static final String ABSOLUTE = "minCandidateNodesAbsolute";
  static final String STATUS_PERIOD = "statusUpdatePeriodSeconds";

  public static final CapacitySchedulingArgs DEFAULTS = new CapacitySchedulingArgs(10, 100, 1);

  /** Validates the ranges; throws {@link IllegalArgumentException} naming each bad field. */
  public CapacitySchedulingArgs {
    List<String> errors = new ArrayList<>();
    if (minCandidateNodesPercentage < 0 || minCandidateNodesPercentage > 100) {
      errors.add(invalid(PERCENTAGE, minCandidateNodesPercentage, "not in valid range [0, 100]"));
    }
    if (minCandidateNodesAbsolute < 0) {
      errors.add(invalid(ABSOLUTE, minCandidateNodesAbsolute, "not in valid range [0, inf)"));
    }
    if (minCandidateNodesPercentage == 0 && minCandidateNodesAbsolute == 0) {
      errors.add(invalid("minCandidateNodesPercentage, minCandidateNodesAbsolute", "0, 0",
          "cannot both be zero"));
    }
    if (statusUpdatePeriodSeconds < 1) {
      errors.add(invalid(STATUS_PERIOD, statusUpdatePeriodSeconds, "must be greater than or equal to 1"));
    }
    throwIfAny(errors);
  }

  /**
   * Parses pluginConfig args; missing or null fields take their defaults. Throws {@link IllegalArgumentException}
   * naming the field for unknown fields, values that are not 32-bit integers and values out of range.
   */
  public static CapacitySchedulingArgs parse(Map<String, Object> args) {
    if (args == null || args.isEmpty()) {
      return DEFAULTS;
    }
    List<String> errors = new ArrayList<>();
    rejectUnknown(args, Set.of(PERCENTAGE, ABSOLUTE, STATUS_PERIOD), errors);
    int pct = integer(args, PERCENTAGE, DEFAULTS.minCandidateNodesPercentage(), errors);
    int abs = integer(args, ABSOLUTE, DEFAULTS.minCandidateNodesAbsolute(), errors);
    int period = integer(args, STATUS_PERIOD, DEFAULTS.statusUpdatePeriodSeconds(), errors);
    throwIfAny(errors);
    return new CapacitySchedulingArgs(pct, abs, period);
  }
}
