package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON helpers for the server's object trees: one shared mapper, reading and writing, and null-safe field access.
 * Stateless and thread-safe.
 */
public final class Json {

  /** The mapper every part of the server uses; thread-safe once built. */
  public static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Json() {
  }

  /** A new empty object node. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** Parses a request body that must be a JSON object. */
  public static ObjectNode parseObject(byte[] body) {
    if (body == null || body.length == 0) {
      throw ApiException.badRequest("the request body is empty");
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiException.badRequest("the request body is not valid JSON: " + e.getOriginalMessage());
    }
    if (!(node instanceof ObjectNode obj)) {
      throw ApiException.badRequest("the request body must be a JSON object");
    }
    return obj;
  }

  /** Parses any JSON value. */
  public static JsonNode parse(byte[] body) {
    try {
      return MAPPER.readTree(body);
    } catch (JacksonException e) {
      throw ApiException.badRequest("the request body is not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** Serializes a tree. */
  public static byte[] bytes(JsonNode node) {
    return MAPPER.writeValueAsBytes(node);
  }

  /** Serializes a tree to a string. */
  public static String string(JsonNode node) {
    return new String(bytes(node), StandardCharsets.UTF_8);
  }

  /** Converts a tree to a typed value (a fabric8 model class, for instance). */
  public static <T> T convert(JsonNode node, Class<T> type) {
    return MAPPER.treeToValue(node, type);
  }

  /** Converts a value (a fabric8 model object, for instance) to an object tree. */
  public static ObjectNode toTree(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** The string at {@code path}, or null when absent or not a string. */
  public static String text(JsonNode node, String... path) {
    JsonNode at = at(node, path);
    return at != null && at.isString() ? at.stringValue() : null;
  }

  /** The node at {@code path}, or null when absent or JSON null. */
  public static JsonNode at(JsonNode node, String... path) {
    JsonNode at = node;
    for (String p : path) {
      if (at == null || !at.isObject()) {
        return null;
      }
      at = at.get(p);
    }
    return at == null || at.isNull() || at.isMissingNode() ? null : at;
  }

  /** The object at {@code path} in {@code node}, created (replacing a non-object) when absent. */
  public static ObjectNode objectAt(ObjectNode node, String... path) {
    ObjectNode at = node;
    for (String p : path) {
      JsonNode next = at.get(p);
      at = next instanceof ObjectNode obj ? obj : at.putObject(p);
    }
    return at;
  }

  /** A string map ({@code metadata.labels}) as an unmodifiable map; empty when absent. */
  public static Map<String, String> stringMap(JsonNode node, String... path) {
    JsonNode at = at(node, path);
    if (at == null || !at.isObject() || at.isEmpty()) {
      return Map.of();
    }
    Map<String, String> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : at.properties()) {
      map.put(e.getKey(), e.getValue().isString() ? e.getValue().stringValue() : e.getValue().toString());
    }
    return Collections.unmodifiableMap(map);
  }

  /** The metadata object of an object tree, created when absent. */
  public static ObjectNode metadata(ObjectNode obj) {
    return objectAt(obj, "metadata");
  }
}
