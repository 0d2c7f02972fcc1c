package io.berth.plugins.noderesources;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Collects argument validation errors worded as apimachinery's {@code field.Error}
 * ("scoringStrategy.type: Unsupported value: ...") and throws them as one
 * {@link IllegalArgumentException} joined as upstream's aggregate error ("[e1, e2]"). Confined to
 * the thread validating one plugin's arguments.
 */
final class FieldErrors {
  private final List<String> errors = new ArrayList<>();

  void invalid(String path, Object value, String detail) {
    errors.add(path + ": Invalid value: " + render(value)
        + (detail.isEmpty() ? "" : ": " + detail));
  }

  void required(String path, String detail) {
    errors.add(path + ": Required value" + (detail.isEmpty() ? "" : ": " + detail));
  }

  void notSupported(String path, Object value, List<String> supported) {
    errors.add(path + ": Unsupported value: " + render(value) + ": supported values: "
        + supported.stream().map(FieldErrors::render).collect(Collectors.joining(", ")));
  }

  void forbidden(String path, String detail) {
    errors.add(path + ": Forbidden: " + detail);
  }

  void duplicate(String path, Object value) {
    errors.add(path + ": Duplicate value: " + render(value));
  }

  /** A key the arguments' type does not have, as upstream's strict decoding reports it. */
  void unknownField(String path) {
    errors.add("unknown field \"" + path + "\"");
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  /** Throws the collected errors, if any, as one {@link IllegalArgumentException}. */
  void throwIfAny() {
    if (errors.size() == 1) {
      throw new IllegalArgumentException(errors.get(0));
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException("[" + String.join(", ", errors) + "]");
    }
  }

  /** Strings quoted, everything else as printed, like Go's {@code %#v} for these values. */
  static String render(Object value) {
    if (value instanceof String s) {
      return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    return String.valueOf(value);
  }
}
