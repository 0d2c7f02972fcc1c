package io.berth.plugins.coscheduling;

import static io.berth.plugins.helper.PluginArgFields.integer;
import static io.berth.plugins.helper.PluginArgFields.invalid;
import static io.berth.plugins.helper.PluginArgFields.rejectUnknown;
import static io.berth.plugins.helper.PluginArgFields.throwIfAny;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Coscheduling's arguments, as scheduler-plugins' {@code CoschedulingArgs}: how long a member waits at Permit for
 * the rest of its group when the PodGroup sets no {@code scheduleTimeoutSeconds} ({@code permitWaitingTimeSeconds},
 * default 60) and how long a group that failed is kept from retrying ({@code podGroupBackoffSeconds}, default 0:
 * no group backoff). Both must be at least 0. Berth's own {@code maxGroupCycleMembers} (default 256, at least 1;
 * scheduler-plugins has no group cycle) caps how many members one group scheduling cycle places: a larger group is
 * placed in chunks, each chunk all or nothing, the earlier chunks waiting at Permit for the rest.
 * Immutable; the constructor validates.
 */
public record CoschedulingArgs(int permitWaitingTimeSeconds, int podGroupBackoffSeconds, int maxGroupCycleMembers) {
  public static final int DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60;
  public static final int DEFAULT_POD_GROUP_BACKOFF_SECONDS = 0;
  public static final int DEFAULT_MAX_GROUP_CYCLE_MEMBERS = 256;

  static final String PERMIT_WAITING_TIME = "permitWaitingTimeSeconds";
  static final String POD_GROUP_BACKOFF = "podGroupBackoffSeconds";
  static final String MAX_GROUP_CYCLE_MEMBERS = "maxGroupCycleMembers";

  public static final CoschedulingArgs DEFAULTS = new CoschedulingArgs(DEFAULT_PERMIT_WAITING_TIME_SECONDS,
      DEFAULT_POD_GROUP_BACKOFF_SECONDS, DEFAULT_MAX_GROUP_CYCLE_MEMBERS);

  /** scheduler-plugins' two fields; {@code maxGroupCycleMembers} takes its default. */
  public CoschedulingArgs(int permitWaitingTimeSeconds, int podGroupBackoffSeconds) {
    this(permitWaitingTimeSeconds, podGroupBackoffSeconds, DEFAULT_MAX_GROUP_CYCLE_MEMBERS);
  }

  /** Validates the ranges; throws {@link IllegalArgumentException} naming each bad field. */
  public CoschedulingArgs {
    List<String> errors = new ArrayList<>();
    if (permitWaitingTimeSeconds < 0) {
      errors.add(invalid(PERMIT_WAITING_TIME, permitWaitingTimeSeconds, "must be greater than or equal to 0"));
    }
    if (podGroupBackoffSeconds < 0) {
      errors.add(invalid(POD_GROUP_BACKOFF, podGroupBackoffSeconds, "must be greater than or equal to 0"));
    }
    if (maxGroupCycleMembers < 1) {
      errors.add(invalid(MAX_GROUP_CYCLE_MEMBERS, maxGroupCycleMembers, "must be greater than or equal to 1"));
    }
    throwIfAny(errors);
  }

  /**
   * Parses pluginConfig args; missing or null fields take their defaults. Throws {@link IllegalArgumentException}
   * naming the field for unknown fields, values that are not 32-bit integers and values out of range.
   */
  public static CoschedulingArgs parse(Map<String, Object> args) {
    if (args == null || args.isEmpty()) {
      return DEFAULTS;
    }
    List<String> errors = new ArrayList<>();
    rejectUnknown(args, Set.of(PERMIT_WAITING_TIME, POD_GROUP_BACKOFF, MAX_GROUP_CYCLE_MEMBERS), errors);
    int wait = integer(args, PERMIT_WAITING_TIME, DEFAULT_PERMIT_WAITING_TIME_SECONDS, errors);
    int backoff = integer(args, POD_GROUP_BACKOFF, DEFAULT_POD_GROUP_BACKOFF_SECONDS, errors);
    int cycle = integer(args, MAX_GROUP_CYCLE_MEMBERS, DEFAULT_MAX_GROUP_CYCLE_MEMBERS, errors);
    throwIfAny(errors);
    return new CoschedulingArgs(wait, backoff, cycle);
  }
}
