package io.berth.simulator.scenario;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects what is wrong with one scenario file while the loader reads all of it, so that one run reports every
 * problem at once. Each problem is {@code document N (WHAT): FIELD: MESSAGE}, in apimachinery's {@code field.Error}
 * wording ({@code Required value}, {@code Invalid value: X: why}, {@code Unsupported value}, {@code Unknown field}).
 * Not thread-safe: confined to the loading thread.
 */
final class Problems {

  private final List<String> problems = new ArrayList<>();

  /** Where problems are reported now: a document with a label such as {@code Deployment demo/web}. */
  private String where = "";

  void document(int number, String label) {
    where = "document " + number + (label.isEmpty() ? "" : " (" + label + ")");
  }

  void add(String field, String message) {
    problems.add(where + ": " + (field.isEmpty() ? "" : field + ": ") + message);
  }

  void required(String field) {
    add(field, "Required value");
  }

  void invalid(String field, Object value, String why) {
    add(field, "Invalid value: " + quote(value) + ": " + why);
  }

  void unknown(String field) {
    add(field, "Unknown field");
  }

  /** An unknown field with its line in the file (0: not known). */
  void unknown(int line, String field) {
    problems.add(where + (line > 0 ? ", line " + line : "") + ": " + field + ": Unknown field");
  }

  /** Strings (and string nodes) in double quotes, numbers, maps and lists as they are. */
  static String quote(Object value) {
    if (value instanceof tools.jackson.databind.JsonNode n && n.isString()) {
      return "\"" + n.stringValue() + "\"";
    }
    return value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
  }

  boolean isEmpty() {
    return problems.isEmpty();
  }

  int size() {
    return problems.size();
  }

  List<String> all() {
    return List.copyOf(problems);
  }
}
