package io.berth.scheduler.config;

import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One problem in a configuration file, rendered like apimachinery's {@code field.Error}:
 * {@code <path>: <kind>[: <value>][: <detail>]}, e.g.
 * {@code percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]}. Immutable.
 */
record FieldError(String path, String text) {

  static FieldError invalid(String path, Object value, String detail) {
    return new FieldError(path, "Invalid value: " + render(value) + ": " + detail);
  }

  static FieldError required(String path, String detail) {
    return new FieldError(path, "Required value" + (detail.isEmpty() ? "" : ": " + detail));
  }

  static FieldError duplicate(String path, Object value) {
    return new FieldError(path, "Duplicate value: " + render(value));
  }

  static FieldError unsupported(String path, Object value, String... supported) {
    String values = Stream.of(supported).map(FieldError::render).collect(Collectors.joining(", "));
    return new FieldError(path, "Unsupported value: " + render(value) + ": supported values: "
        + values);
  }

  static FieldError forbidden(String path, String detail) {
    return new FieldError(path, "Forbidden: " + detail);
  }

  static FieldError unknownField(String path, Iterable<String> known) {
    return new FieldError(path, "unknown field (known fields: " + String.join(", ", known) + ")");
  }

  /** A message that is not about one field (the whole document). */
  static FieldError document(String text) {
    return new FieldError("", text);
  }

  /** A value already rendered, shown as is (not quoted). */
  record Literal(String text) {
    @Override
    public String toString() {
      return text;
    }
  }

  /** Strings quoted (Go's {@code %q}), everything else as {@code toString()}. */
  static String render(Object value) {
    if (value instanceof String s) {
      StringBuilder out = new StringBuilder("\"");
      for (char c : s.toCharArray()) {
        switch (c) {
          case '"' -> out.append("\\\"");
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          case '\t' -> out.append("\\t");
          default -> out.append(c);
        }
      }
      return out.append('"').toString();
    }
    return String.valueOf(value);
  }

  @Override
  public String toString() {
    return path.isEmpty() ? text : path + ": " + text;
  }

  /** {@code parent.child}, or {@code child} at the root. */
  static String child(String parent, String name) {
    return parent.isEmpty() ? name : parent + "." + name;
  }

  static String index(String parent, int i) {
    return parent + "[" + i + "]";
  }
}
