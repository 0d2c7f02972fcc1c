package io.berth.embedded.defaults;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Go zero-value tests and setters over Jackson trees, so that defaulting code reads like upstream's
 * {@code if obj.Field == "" { obj.Field = ... }}. "Unset" follows the Go field's type: a pointer is unset
 * when absent or JSON null; a string when also empty; an integer when also zero. Values of the wrong JSON
 * type are left alone (validation, not defaulting, rejects them). Stateless, thread-safe.
 */
final class JsonFields {

  private JsonFields() {}

  /** Whether a pointer field is unset (absent or null). */
  static boolean isNil(ObjectNode parent, String field) {
    JsonNode value = parent.get(field);
    return value == null || value.isNull();
  }

  /** Whether a string field is unset (absent, null or ""). */
  static boolean isEmptyString(ObjectNode parent, String field) {
    JsonNode value = parent.get(field);
    return value == null || value.isNull() || (value.isString() && value.stringValue().isEmpty());
  }

  /** Whether an integer field is unset (absent, null or 0). */
  static boolean isZero(ObjectNode parent, String field) {
    JsonNode value = parent.get(field);
    return value == null || value.isNull() || (value.isNumber() && value.asLong() == 0);
  }

  static void defaultString(ObjectNode parent, String field, String value) {
    if (isEmptyString(parent, field)) {
      parent.put(field, value);
    }
  }

  static void defaultInt(ObjectNode parent, String field, int value) {
    if (isZero(parent, field)) {
      parent.put(field, value);
    }
  }

  static void defaultPointer(ObjectNode parent, String field, int value) {
    if (isNil(parent, field)) {
      parent.put(field, value);
    }
  }

  static void defaultPointer(ObjectNode parent, String field, String value) {
    if (isNil(parent, field)) {
      parent.put(field, value);
    }
  }

  static void defaultPointer(ObjectNode parent, String field, boolean value) {
    if (isNil(parent, field)) {
      parent.put(field, value);
    }
  }

  /** The string value of a field, "" when unset or not a string. */
  static String string(JsonNode parent, String field) {
    JsonNode value = parent.get(field);
    return value != null && value.isString() ? value.stringValue() : "";
  }

  /**
   * The object at {@code field}, created when unset. When the field holds something else (malformed
   * input), a detached object is returned so callers can proceed without touching the input.
   */
  static ObjectNode object(ObjectNode parent, String field) {
    JsonNode value = parent.get(field);
    if (value == null || value.isNull()) {
      return parent.putObject(field);
    }
    return value.isObject() ? (ObjectNode) value : parent.objectNode();
  }

  /** The object at {@code field} if it is one; null otherwise (nothing is created). */
  static ObjectNode existingObject(JsonNode parent, String field) {
    JsonNode value = parent == null ? null : parent.get(field);
    return value != null && value.isObject() ? (ObjectNode) value : null;
  }

  /** The object elements of the list at {@code field}; empty when unset or not a list. */
  static List<ObjectNode> objects(JsonNode parent, String field) {
    List<ObjectNode> out = new ArrayList<>();
    JsonNode value = parent == null ? null : parent.get(field);
    if (value != null && value.isArray()) {
      for (JsonNode item : value) {
        if (item.isObject()) {
          out.add((ObjectNode) item);
        }
      }
    }
    return out;
  }

  /** Whether the list at {@code field} has at least one element. */
  static boolean hasElements(JsonNode parent, String field) {
    JsonNode value = parent == null ? null : parent.get(field);
    return value != null && value.isArray() && !value.isEmpty();
  }
}
