package io.berth.plugins.helper;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The validation pieces plugin args share, worded as upstream's field errors: unknown fields, 32-bit integer fields,
 * {@code field: Invalid value: v: detail}, and one error as itself or several as an aggregate ({@code [e1, e2]}).
 * Stateless; callers collect errors in a list of their own.
 */
public final class PluginArgFields {
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind");

  private PluginArgFields() {}

  /** Adds {@code unknown field "k"} for every key of {@code args} that is neither known nor type metadata. */
  public static void rejectUnknown(Map<String, Object> args, Set<String> known, List<String> errors) {
    for (String key : args.keySet()) {
      if (!known.contains(key) && !TYPE_META.contains(key)) {
        errors.add("unknown field \"" + key + "\"");
      }
    }
  }

  /** The 32-bit integer at {@code key}, {@code defaultValue} when absent or null; anything else is an error. */
  public static int integer(Map<String, Object> args, String key, int defaultValue, List<String> errors) {
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

  /** {@code field: Invalid value: value: detail}, strings quoted. */
  public static String invalid(String field, Object value, String detail) {
    String rendered = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return field + ": Invalid value: " + rendered + ": " + detail;
  }

  /** Throws {@link IllegalArgumentException}: one error as itself, several as upstream's aggregate. */
  public static void throwIfAny(List<String> errors) {
    if (errors.size() == 1) {
      throw new IllegalArgumentException(errors.get(0));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
    }
  }
}
