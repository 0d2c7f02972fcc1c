package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies a CRD version's structural {@code openAPIV3Schema} to a custom object as kube-apiserver does: fields the
 * schema does not declare are pruned (unless {@code x-kubernetes-preserve-unknown-fields}), then {@code type},
 * {@code required}, {@code enum}, {@code minimum}/{@code maximum}, {@code minLength}/{@code maxLength},
 * {@code minItems}/{@code maxItems}, {@code pattern} and {@code anyOf}/{@code x-kubernetes-int-or-string} are
 * checked. {@code metadata}, {@code apiVersion} and {@code kind} are the server's and never pruned. Every violation
 * is reported in one 422 Invalid naming the object and each field path. Stateless and thread-safe.
 */
final class CustomResourceSchema {

  private static final List<String> SERVER_FIELDS = List.of("apiVersion", "kind", "metadata");

  private CustomResourceSchema() {
  }

  /** Prunes {@code obj} in place and validates it against {@code schema}; throws 422 on violations. */
  static void apply(ResourceType type, ObjectNode obj, JsonNode schema) {
    if (schema == null || schema.isMissingNode() || schema.isNull()) {
      return;
    }
    List<String> errors = new ArrayList<>();
    JsonNode properties = schema.path("properties");
    for (String field : List.copyOf(obj.propertyNames())) {
      if (SERVER_FIELDS.contains(field)) {
        continue;
      }
      JsonNode sub = properties.get(field);
      if (sub == null) {
        if (!schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
          obj.remove(field);
        }
        continue;
      }
      check(obj.get(field), sub, field, errors);
    }
    for (JsonNode req : schema.path("required").values()) {
      if (!SERVER_FIELDS.contains(req.asString()) && !obj.has(req.asString())) {
        errors.add(req.asString() + ": Required value");
      }
    }
    if (!errors.isEmpty()) {
      throw ApiException.invalid(type, Json.text(obj, "metadata", "name"), String.join(", ", errors));
    }
  }

  private static void check(JsonNode value, JsonNode schema, String path, List<String> errors) {
    if (value == null || value.isNull()) {
      if (!schema.path("nullable").asBoolean(false)) {
        errors.add(path + ": Invalid value: \"null\": " + path + " in body must be of type "
            + schema.path("type").asString("object"));
      }
      return;
    }
    boolean intOrString = schema.path("x-kubernetes-int-or-string").asBoolean(false);
    if (intOrString) {
      if (!value.isIntegralNumber() && !value.isString()) {
        errors.add(path + ": Invalid value: " + value + ": " + path + " in body must be of type integer or string");
        return;
      }
    } else if (schema.has("anyOf") && !anyMatches(value, schema.get("anyOf"), path)) {
      errors.add(path + ": Invalid value: " + value + ": " + path + " in body must match a schema of anyOf");
      return;
    }
    String type = schema.path("type").asString("");
    if (!type.isEmpty() && !hasType(value, type)) {
      errors.add(path + ": Invalid value: \"" + kindOf(value) + "\": " + path + " in body must be of type " + type);
      return;
    }
    if (schema.has("enum")) {
      boolean found = false;
      for (JsonNode e : schema.get("enum").values()) {
        found |= e.equals(value);
      }
      if (!found) {
        List<String> allowed = new ArrayList<>();
        schema.get("enum").values().forEach(e -> allowed.add(e.toString()));
        errors.add(path + ": Unsupported value: " + value + ": supported values: " + String.join(", ", allowed));
      }
    }
    if (value.isNumber()) {
      if (schema.has("minimum") && value.asDouble() < schema.get("minimum").asDouble()) {
        errors.add(path + ": Invalid value: " + value + ": " + path + " in body should be greater than or equal to "
            + schema.get("minimum"));
      }
      if (schema.has("maximum") && value.asDouble() > schema.get("maximum").asDouble()) {
        errors.add(path + ": Invalid value: " + value + ": " + path + " in body should be less than or equal to "
            + schema.get("maximum"));
      }
    }
    if (value.isString()) {
      String s = value.asString();
      if (schema.has("minLength") && s.length() < schema.get("minLength").asInt()) {
        errors.add(path + ": Invalid value: \"" + s + "\": " + path + " in body should be at least "
            + schema.get("minLength") + " chars long");
      }
      if (schema.has("maxLength") && s.length() > schema.get("maxLength").asInt()) {
        errors.add(path + ": Too long: may not be longer than " + schema.get("maxLength"));
      }
      if (schema.has("pattern") && !matches(schema.get("pattern").asString(), s)) {
        errors.add(path + ": Invalid value: \"" + s + "\": " + path + " in body should match '"
            + schema.get("pattern").asString() + "'");
      }
    }
    if (value.isArray()) {
      if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
        errors.add(path + ": Invalid value: " + value.size() + ": " + path + " in body should have at least "
            + schema.get("minItems") + " items");
      }
      if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
        errors.add(path + ": Too many: " + value.size() + ": must have at most " + schema.get("maxItems") + " items");
      }
      JsonNode items = schema.get("items");
      if (items != null) {
        int i = 0;
        for (JsonNode item : value.values()) {
          if (item.isObject()) {
            prune((ObjectNode) item, items);
          }
          check(item, items, path + "[" + i + "]", errors);
          i++;
        }
      }
    }
    if (value.isObject()) {
      ObjectNode obj = (ObjectNode) value;
      prune(obj, schema);
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.get("additionalProperties");
      for (Map.Entry<String, JsonNode> e : List.copyOf(obj.properties())) {
        JsonNode sub = properties.get(e.getKey());
        if (sub == null && additional != null && additional.isObject()) {
          sub = additional;
        }
        if (sub != null) {
          check(e.getValue(), sub, path + "." + e.getKey(), errors);
        }
      }
      for (JsonNode req : schema.path("required").values()) {
        if (!obj.has(req.asString())) {
          errors.add(path + "." + req.asString() + ": Required value");
        }
      }
    }
  }

  /** Removes the fields of {@code obj} that {@code schema} neither declares nor allows. */
  private static void prune(ObjectNode obj, JsonNode schema) {
    if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false) || schema.has("additionalProperties")
        || !schema.has("properties")) {
      return;
    }
    JsonNode properties = schema.get("properties");
    for (String field : List.copyOf(obj.propertyNames())) {
      if (!properties.has(field)) {
        obj.remove(field);
      }
    }
  }

  private static boolean anyMatches(JsonNode value, JsonNode anyOf, String path) {
    for (JsonNode option : anyOf.values()) {
      List<String> errs = new ArrayList<>();
      check(value.deepCopy(), option, path, errs);
      if (errs.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasType(JsonNode value, String type) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isString();
      case "integer" -> value.isIntegralNumber() || (value.isNumber() && value.asDouble() == Math.rint(value.asDouble()));
      case "number" -> value.isNumber();
      case "boolean" -> value.isBoolean();
      default -> true;
    };
  }

  private static String kindOf(JsonNode value) {
    if (value.isObject()) {
      return "object";
    }
    if (value.isArray()) {
      return "array";
    }
    if (value.isString()) {
      return "string";
    }
    if (value.isBoolean()) {
      return "boolean";
    }
    return value.isIntegralNumber() ? "integer" : "number";
  }

  private static boolean matches(String pattern, String s) {
    try {
      return Pattern.compile(pattern).matcher(s).find();
    } catch (PatternSyntaxException e) {
      return true; // a pattern Java cannot compile is not enforced
    }
  }
}
