package io.berth.plugins.coscheduling;

import java.math.BigInteger;
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
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind");

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
    for (String key : args.keySet()) {
      if (!PERMIT_WAITING_TIME.equals(key) && !POD_GROUP_BACKOFF.equals(key) && !TYPE_META.contains(key)) {
        errors.add("unknown field \"" + key + "\"");
      }
    }
    int wait = integer(args, PERMIT_WAITING_TIME, DEFAULT_PERMIT_WAITING_TIME_SECONDS, errors);
    int backoff = integer(args, POD_GROUP_BACKOFF, DEFAULT_POD_GROUP_BACKOFF_SECONDS, errors);
    throwIfAny(errors);
    return new CoschedulingArgs(wait, backoff);
  }

  private static int integer(Map<String, Object> args, String key, int defaultValue, List<String> errors) {
    Object raw = args.get(key);
    if (raw == null) {
      return defaultValue;
    }
    if (raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
      return ((Number) raw).intValue();
    }
    if (raw instanceof Long || raw instanceof BigInteger) {
      BigInteger big = raw instanceof BigInteger b ? b : BigInteger.valueOf(((Number) raw).longValue());
      if (big.bitLength() < 32) {
        return big.intValue();
      }
    }
    errors.add(invalid(key, raw, "must be a 32-bit integer"));
    return defaultValue;
  }

  private static String invalid(String field, Object value, String detail) {
    String rendered = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return field + ": Invalid value: " + rendered + ": " + detail;
  }

  private static void throwIfAny(List<String> errors) {
    if (errors.size() == 1) {
      throw new IllegalArgumentException(errors.get(0));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
    }
  }
}
