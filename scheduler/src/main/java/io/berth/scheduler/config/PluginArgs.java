package io.berth.scheduler.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Turns a {@code pluginConfig[].args} tree into the JSON-like value plugin factories take: maps
 * (in file order) of strings to nested maps, lists, strings, booleans and numbers (Integer, Long,
 * BigInteger, Double or BigDecimal, as parsed). The top-level {@code apiVersion} and {@code kind}
 * are type information, not arguments, and are dropped; a {@code null} map value means "unset"
 * and is dropped too. The result is deeply unmodifiable. Stateless.
 */
final class PluginArgs {
  private static final List<String> TYPE_FIELDS = List.of("apiVersion", "kind");

  private PluginArgs() {}

  static Map<String, Object> fromTree(JsonNode args) {
    Map<String, Object> map = new LinkedHashMap<>();
    args.forEachEntry((name, value) -> {
      if (!TYPE_FIELDS.contains(name) && !value.isNull()) {
        map.put(name, convert(value));
      }
    });
    return Collections.unmodifiableMap(map);
  }

  private static Object convert(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.forEachEntry((name, value) -> {
        if (!value.isNull()) {
          map.put(name, convert(value));
        }
      });
      return Collections.unmodifiableMap(map);
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(item -> list.add(item.isNull() ? null : convert(item)));
      return Collections.unmodifiableList(list);
    }
    if (node.isNumber()) {
      return node.numberValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    return node.asString();
  }
}
