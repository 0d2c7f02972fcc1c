package io.berth.plugins.noderesources;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads typed values out of plugin arguments given as parsed YAML (nested Map/List/String/Number/
 * Boolean), reporting a value of the wrong type or an unknown key to {@link FieldErrors} under its
 * path instead of failing with a cast. Stateless.
 */
final class ArgsReader {
  private ArgsReader() {}

  /** Reports every key of {@code object} outside {@code known}; {@code prefix} is "" or "a.b.". */
  static void rejectUnknownKeys(Map<String, Object> object, Set<String> known, String prefix,
      FieldErrors errors) {
    for (String key : object.keySet()) {
      if (!known.contains(key)) {
        errors.unknownField(prefix + key);
      }
    }
  }

  /** The nested object under {@code key}; empty when absent, null or of another type. */
  @SuppressWarnings("unchecked")
  static Optional<Map<String, Object>> object(Map<String, Object> parent, String key, String path,
      FieldErrors errors) {
    Object value = parent.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (value instanceof Map<?, ?> map) {
      return Optional.of((Map<String, Object>) map);
    }
    errors.invalid(path, value, "must be an object");
    return Optional.empty();
  }

  /** The list under {@code key}; empty when absent, null or of another type. */
  static Optional<List<?>> list(Map<String, Object> parent, String key, String path,
      FieldErrors errors) {
    Object value = parent.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (value instanceof List<?> list) {
      return Optional.of(list);
    }
    errors.invalid(path, value, "must be a list");
    return Optional.empty();
  }

  /** An element of a list expected to be an object. */
  @SuppressWarnings("unchecked")
  static Optional<Map<String, Object>> asObject(Object value, String path, FieldErrors errors) {
    if (value instanceof Map<?, ?> map) {
      return Optional.of((Map<String, Object>) map);
    }
    errors.invalid(path, value, "must be an object");
    return Optional.empty();
  }

  /** A value expected to be a string; empty (with an error) otherwise. */
  static Optional<String> asString(Object value, String path, FieldErrors errors) {
    if (value instanceof String s) {
      return Optional.of(s);
    }
    errors.invalid(path, value, "must be a string");
    return Optional.empty();
  }

  /** The string under {@code key}; empty when absent or null. */
  static Optional<String> string(Map<String, Object> parent, String key, String path,
      FieldErrors errors) {
    Object value = parent.get(key);
    return value == null ? Optional.empty() : asString(value, path, errors);
  }

  /** The whole number under {@code key} within [min, max]; empty when absent or null. */
  static OptionalLong integer(Map<String, Object> parent, String key, String path, long min,
      long max, FieldErrors errors) {
    Object value = parent.get(key);
    if (value == null) {
      return OptionalLong.empty();
    }
    if (value instanceof Number n) {
      double d = n.doubleValue();
      long l = n.longValue();
      if (d == l && l >= min && l <= max) {
        return OptionalLong.of(l);
      }
    }
    errors.invalid(path, value, "must be an integer in [" + min + ", " + max + "]");
    return OptionalLong.empty();
  }
}
