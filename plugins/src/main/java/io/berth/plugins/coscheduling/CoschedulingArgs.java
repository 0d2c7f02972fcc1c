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
 * no group backoff). Both must be at least 0. Immutable; the constructor validates.
 */
public record CoschedulingArgs(int permitWaitingTimeSeconds, int podGroupBackoffSeconds) {
  public static final int DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60;
  public static final int DEFAULT_POD_GROUP_BACKOFF_SECONDS = 0;

  static final String PERMIT_WAITING_TIME = "permitWaitingTimeSeconds";
  static final String POD_GROUP_BACKOFF = "podGroupBackoffSeconds";

  public static final CoschedulingArgs DEFAULTS =
      new CoschedulingArgs(DEFAULT_PERMIT_WAITING_TIME_SECONDS, DEFAULT_POD_GROUP_BACKOFF_SECONDS);

  /** Validates the ranges; throws {@link IllegalArgumentException} naming each bad field. */
  public CoschedulingArgs {
    List<String> errors = new ArrayList<>();
    if (permitWaitingTimeSeconds < 0) {
      errors.add(invalid(PERMIT_WAITING_TIME, permitWaitingTimeSeconds, "must be greater than or equal to 0"));
    }
    if (podGroupBackoffSeconds < 0) {
      errors.add(invalid(POD_GROUP_BACKOFF, podGroupBackoffSeconds, "must be greater than or equal to 0"));
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
    rejectUnknown(args, Set.of(PERMIT_WAITING_TIME, POD_GROUP_BACKOFF), errors);
    int wait = integer(args, PERMIT_WAITING_TIME, DEFAULT_PERMIT_WAITING_TIME_SECONDS, errors);
    int backoff = integer(args, POD_GROUP_BACKOFF, DEFAULT_POD_GROUP_BACKOFF_SECONDS, errors);
    throwIfAny(errors);
    return new CoschedulingArgs(wait, backoff);
  }
}
