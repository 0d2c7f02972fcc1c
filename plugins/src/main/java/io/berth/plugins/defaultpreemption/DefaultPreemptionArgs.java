package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.helper.PluginArgFields.integer;
import static io.berth.plugins.helper.PluginArgFields.invalid;
import static io.berth.plugins.helper.PluginArgFields.rejectUnknown;
import static io.berth.plugins.helper.PluginArgFields.throwIfAny;

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
    rejectUnknown(args, Set.of(PERCENTAGE, ABSOLUTE), errors);
    int percentage = integer(args, PERCENTAGE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE, errors);
    int absolute = integer(args, ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE, errors);
    throwIfAny(errors);
    return new DefaultPreemptionArgs(percentage, absolute);
  }
}
