package io.berth.embedded.patch;

import io.berth.embedded.patch.PatchMeta.Field;
import io.berth.embedded.patch.PatchMeta.Strategy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The strategic-merge-patch algorithm of apimachinery's {@code strategicpatch.StrategicMergeMapPatch}
 * (server side: parallel lists are merged, unmatched nulls are ignored), over Jackson trees.
 *
 * <p>Every method takes ownership of its arguments: callers pass deep copies, and the methods mutate
 * them and return the merged node (which may be a different node, e.g. for {@code $patch: replace}).
 * Stateless; each call is confined to the calling thread.
 *
 * <p>Directives, as upstream applies them:
 * <ul>
 *   <li>{@code $patch: replace} in a map: the map becomes the patch map; {@code $patch: delete}: the map
 *       becomes empty; {@code $patch: merge} is rejected, as upstream does.
 *   <li>In a merged list of maps, an item {@code {"$patch":"delete", <key>: v}} removes the items with
 *       that key; an item {@code {"$patch":"replace"}} makes the list exactly the other patch items.
 *   <li>{@code $retainKeys: [..]} drops the original map's keys not listed (after checking that the
 *       patch only sets listed keys).
 *   <li>{@code $deleteFromPrimitiveList/<field>: [..]} removes those values from a primitive list.
 *   <li>{@code $setElementOrder/<field>: [..]} orders the merged list: listed items in the given order,
 *       items only on the server keep their relative position among them.
 * </ul>
 *
 * <p>Order of a merged list without {@code $setElementOrder} (upstream's {@code normalizeElementOrder}):
 * patch items in patch order, server-only items in server order, interleaved so that a server-only item
 * precedes a patch item only if it preceded it on the server. Hence an item new to the list comes before
 * the server's items (kubectl's documented "the new container is listed first").
 */
final class StrategicMerger {

  static final String DIRECTIVE = "$patch";
  static final String RETAIN_KEYS = "$retainKeys";
  static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
  static final String SET_ELEMENT_ORDER = "$setElementOrder";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private StrategicMerger() {}

  /** Merges {@code patch} into {@code original}, both owned by this call, as typed by {@code meta}. */
  static ObjectNode mergeMap(ObjectNode original, ObjectNode patch, PatchMeta meta) {
    JsonNode directive = patch.get(DIRECTIVE);
    if (directive != null) {
      String value = directive.isString() ? directive.stringValue() : directive.toString();
      switch (value) {
        case "replace" -> {
          patch.remove(DIRECTIVE);
          return mergeMap(NODES.objectNode(), patch, meta);
        }
        case "delete" -> {
          return NODES.objectNode();
        }
        default -> throw PatchException.unprocessable("unknown patch type: " + value + " in map: " + patch);
      }
    }
    applyRetainKeys(original, patch);
    applySetElementOrder(original, patch, meta);

    for (Map.Entry<String, JsonNode> entry : new ArrayList<>(patch.properties())) {
      String key = entry.getKey();
      JsonNode value = entry.getValue();
      boolean deletionList = false;
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        key = fieldOfDirective(key, DELETE_FROM_PRIMITIVE_LIST, "invalid patch format of primitive list");
        deletionList = true;
      }
      if (value.isNull()) {
        original.remove(key);
        continue;
      }
      Field field = meta.field(key);
      JsonNode current = original.get(key);
      if (current == null || current.isNull()) {
        if (!deletionList) {
          original.set(key, clean(value, field));
        }
        continue;
      }
      if (deletionList) {
        if (!value.isArray()) {
          throw PatchException.badRequest("invalid patch format of primitive list");
        }
        if (!current.isArray()) {
          throw PatchException.unprocessable("cannot delete from " + key + ": it is not a list");
        }
        original.set(key, deleteFromList((ArrayNode) current, (ArrayNode) value));
      } else if (current.isObject() && value.isObject()) {
        original.set(key, field.strategy() == Strategy.REPLACE
            ? clean(value, field)
            : mergeMap((ObjectNode) current, (ObjectNode) value, field.type()));
      } else if (current.isArray() && value.isArray()) {
        original.set(key, field.strategy() == Strategy.MERGE
            ? mergeList((ArrayNode) current, (ArrayNode) value, field)
            : clean(value, field));
      } else {
        original.set(key, clean(value, field));
      }
    }
    return original;
  }

  /**
   * A patch value for a key the original lacks (or replaces wholesale): directives are applied against
   * nothing and nulls dropped, so no {@code $}-key and no null ends up in the stored object.
   */
  private static JsonNode clean(JsonNode value, Field field) {
    if (value.isObject()) {
      return mergeMap(NODES.objectNode(), (ObjectNode) value, field.type());
    }
    if (value.isArray()) {
      if (field.strategy() == Strategy.MERGE) {
        return mergeList(NODES.arrayNode(), (ArrayNode) value, field);
      }
      ArrayNode out = NODES.arrayNode();
      Field element = new Field(Strategy.DEFAULT, field.mergeKey(), false, field.type());
      for (JsonNode item : value) {
        out.add(item.isObject() || item.isArray() ? clean(item, element) : item);
      }
      return out;
    }
    return value;
  }

  /** Merges a list tagged {@code patchStrategy:"merge"} (upstream's {@code mergeSlice}). */
  private static ArrayNode mergeList(ArrayNode original, ArrayNode patch, Field field) {
    if (original.isEmpty() && patch.isEmpty()) {
      return original;
    }
    boolean objects = objectElements(original, patch);
    if (!objects) {
      List<JsonNode> merged = new ArrayList<>();
      for (JsonNode item : original) {
        addIfAbsent(merged, item);
      }
      for (JsonNode item : patch) {
        addIfAbsent(merged, item);
      }
      return toArray(orderMerged(merged, list(patch), list(original), null));
    }
    String mergeKey = field.mergeKey()
        .orElseThrow(() -> PatchException.unprocessable("cannot merge lists without merge key for type map"));

    // special elements first: deletions shrink the server list, a replace discards it
    List<JsonNode> server = list(original);
    List<ObjectNode> items = new ArrayList<>();
    boolean replace = false;
    for (JsonNode element : patch) {
      ObjectNode item = (ObjectNode) element;
      JsonNode directive = item.get(DIRECTIVE);
      if (directive == null) {
        items.add(item);
        continue;
      }
      String value = directive.isString() ? directive.stringValue() : directive.toString();
      switch (value) {
        case "delete" -> {
          JsonNode keyValue = requireMergeKey(item, mergeKey);
          server.removeIf(existing -> sameValue(existing.get(mergeKey), keyValue));
        }
        case "replace" -> replace = true;
        case "merge" -> throw PatchException.unprocessable("merging lists cannot yet be specified in the patch");
        default -> throw PatchException.unprocessable("unknown patch type: " + value + " in map: " + item);
      }
    }
    if (replace) {
      server = new ArrayList<>();
      for (ObjectNode item : items) {
        server.add(mergeMap(NODES.objectNode(), item, field.type()));
      }
      items = List.of();
    }

    List<JsonNode> serverOrder = List.copyOf(server);
    List<JsonNode> merged = new ArrayList<>(server);
    for (ObjectNode item : items) {
      requireMergeKey(item, mergeKey);
      int index = indexOf(merged, item, mergeKey);
      if (index >= 0) {
        merged.set(index, mergeMap((ObjectNode) merged.get(index), item, field.type()));
      } else {
        merged.add(mergeMap(NODES.objectNode(), item, field.type()));
      }
    }
    return toArray(orderMerged(merged, new ArrayList<>(items), serverOrder, mergeKey));
  }

  /**
   * Orders a merged list (upstream's {@code normalizeElementOrder} + {@code mergeSortedSlice}): items
   * present in {@code patchOrder} sorted by it, the others sorted by {@code serverOrder}, then
   * interleaved; a server-only item is emitted before the next patch item only when both are on the
   * server and it came first there.
   */
  private static List<JsonNode> orderMerged(List<JsonNode> merged, List<JsonNode> patchOrder,
      List<JsonNode> serverOrder, String mergeKey) {
    if (mergeKey != null) {
      for (JsonNode item : merged) {
        requireMergeKey(item, mergeKey);
      }
      for (JsonNode item : serverOrder) {
        requireMergeKey(item, mergeKey);
      }
    }
    List<JsonNode> fromPatch = new ArrayList<>();
    List<JsonNode> serverOnly = new ArrayList<>();
    for (JsonNode item : merged) {
      (indexOf(patchOrder, item, mergeKey) >= 0 ? fromPatch : serverOnly).add(item);
    }
    sortBy(fromPatch, patchOrder, mergeKey);
    sortBy(serverOnly, serverOrder, mergeKey);

    List<JsonNode> out = new ArrayList<>(merged.size());
    int i = 0;
    int j = 0;
    while (i < serverOnly.size() || j < fromPatch.size()) {
      if (i >= serverOnly.size()) {
        out.add(fromPatch.get(j++));
      } else if (j >= fromPatch.size()) {
        out.add(serverOnly.get(i++));
      } else {
        int left = indexOf(serverOrder, serverOnly.get(i), mergeKey);
        int right = indexOf(serverOrder, fromPatch.get(j), mergeKey);
        if (left >= 0 && right >= 0 && left < right) {
          out.add(serverOnly.get(i++));
        } else {
          out.add(fromPatch.get(j++));
        }
      }
    }
    return out;
  }

  /** Stable sort by position in {@code order}; items not in it keep their relative order at the end. */
  private static void sortBy(List<JsonNode> items, List<JsonNode> order, String mergeKey) {
    items.sort(Comparator.comparingInt(item -> {
      int index = indexOf(order, item, mergeKey);
      return index < 0 ? Integer.MAX_VALUE : index;
    }));
  }

  /** Applies and removes every {@code $setElementOrder/<field>} of {@code patch} (upstream's {@code mergePatchIntoOriginal}). */
  private static void applySetElementOrder(ObjectNode original, ObjectNode patch, PatchMeta meta) {
    for (String key : new ArrayList<>(patch.propertyNames())) {
      if (!key.startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      JsonNode order = patch.remove(key);
      String name = fieldOfDirective(key, SET_ELEMENT_ORDER, "invalid patch format of setElementOrder list");
      if (!order.isArray()) {
        throw PatchException.badRequest("invalid patch format of setElementOrder list");
      }
      Field field = meta.field(name);
      String mergeKey = field.mergeKey().orElse(null);
      JsonNode originalList = present(original.get(name));
      JsonNode patchList = present(patch.get(name));
      if (originalList != null && !originalList.isArray()) {
        throw PatchException.unprocessable(name + " is not a list on the server");
      }
      if (patchList != null && !patchList.isArray()) {
        throw PatchException.unprocessable(name + " is not a list in the patch");
      }
      if (patchList != null) {
        validateAgainstOrder(list(patchList), list(order), mergeKey);
      }
      List<JsonNode> merged;
      if (originalList != null && patchList == null) {
        merged = list(originalList);
      } else if (originalList == null && patchList != null) {
        merged = list(clean(patchList, field));
      } else if (originalList != null) {
        merged = list(field.strategy() == Strategy.MERGE
            ? mergeList((ArrayNode) originalList, (ArrayNode) patchList, field)
            : clean(patchList, field));
      } else {
        continue;
      }
      List<JsonNode> serverOrder = originalList == null ? List.of() : list(originalList);
      original.set(name, toArray(orderMerged(merged, list(order), serverOrder, mergeKey)));
      patch.remove(name);
    }
  }

  /**
   * Upstream's {@code validatePatchWithSetOrderList}: the patch's (non-deleting) items must appear in
   * the order list, in the same relative order.
   */
  private static void validateAgainstOrder(List<JsonNode> patchItems, List<JsonNode> order, String mergeKey) {
    if (patchItems.isEmpty() || order.isEmpty()) {
      return;
    }
    List<JsonNode> kept = new ArrayList<>();
    for (JsonNode item : patchItems) {
      boolean deletion = mergeKey != null && item.isObject()
          && "delete".equals(item.path(DIRECTIVE).asString(""));
      if (!deletion) {
        kept.add(item);
      }
    }
    int p = 0;
    int s = 0;
    while (p < kept.size() && s < order.size()) {
      JsonNode item = kept.get(p);
      if (item.isObject() && item.has(DIRECTIVE)) {
        p++;
        continue;
      }
      if (mergeKey == null
          ? sameValue(item, order.get(s))
          : sameValue(requireMergeKey(item, mergeKey), requireMergeKey(order.get(s), mergeKey))) {
        p++;
      }
      s++;
    }
    if (p < kept.size()) {
      throw PatchException.badRequest("The order in patch list: " + patchItems
          + " doesn't match " + SET_ELEMENT_ORDER + " list: " + order);
    }
  }

  /** Upstream's {@code applyRetainKeysDirective}: consumes {@code $retainKeys} and trims {@code original}. */
  private static void applyRetainKeys(ObjectNode original, ObjectNode patch) {
    JsonNode retain = patch.remove(RETAIN_KEYS);
    if (retain == null) {
      return;
    }
    if (!retain.isArray()) {
      throw PatchException.badRequest("invalid patch format of retainKeys");
    }
    Set<String> keys = new HashSet<>();
    for (JsonNode key : retain) {
      if (key.isString()) {
        keys.add(key.stringValue());
      }
    }
    for (Map.Entry<String, JsonNode> entry : patch.properties()) {
      String key = entry.getKey();
      if (entry.getValue().isNull() || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      if (!keys.contains(key)) {
        throw PatchException.badRequest("invalid patch format of retainKeys");
      }
    }
    original.retain(keys);
  }

  private static String fieldOfDirective(String key, String prefix, String formatError) {
    int slash = key.indexOf('/');
    if (slash < 0 || !key.substring(0, slash).equals(prefix)) {
      throw PatchException.badRequest(formatError);
    }
    return key.substring(slash + 1);
  }

  private static ArrayNode deleteFromList(ArrayNode current, ArrayNode toDelete) {
    ArrayNode out = NODES.arrayNode();
    for (JsonNode item : current) {
      boolean deleted = false;
      for (JsonNode victim : toDelete) {
        if (sameValue(item, victim)) {
          deleted = true;
          break;
        }
      }
      if (!deleted) {
        out.add(item);
      }
    }
    return out;
  }

  /**
   * Whether the elements of both lists are objects (true) or scalars (false); mixed element types and
   * lists of lists are rejected, as upstream's {@code sliceElementType} does.
   */
  private static boolean objectElements(ArrayNode original, ArrayNode patch) {
    Boolean objects = null;
    for (ArrayNode list : List.of(original, patch)) {
      for (JsonNode item : list) {
        if (item.isArray()) {
          throw PatchException.unprocessable("lists of lists are not supported");
        }
        boolean isObject = item.isObject();
        if (objects != null && objects != isObject) {
          throw PatchException.unprocessable("list element types are not identical: " + original + " " + patch);
        }
        objects = isObject;
      }
    }
    return Boolean.TRUE.equals(objects);
  }

  private static JsonNode requireMergeKey(JsonNode item, String mergeKey) {
    JsonNode value = item.isObject() ? item.get(mergeKey) : null;
    if (value == null) {
      throw PatchException.unprocessable("map: " + item + " does not contain declared merge key: " + mergeKey);
    }
    return value;
  }

  /** Index of {@code item} in {@code list}: by merge-key value for maps, by value for scalars. */
  private static int indexOf(List<JsonNode> list, JsonNode item, String mergeKey) {
    JsonNode wanted = mergeKey == null ? item : item.get(mergeKey);
    if (wanted == null) {
      return -1;
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode candidate = mergeKey == null ? list.get(i) : list.get(i).get(mergeKey);
      if (candidate != null && sameValue(candidate, wanted)) {
        return i;
      }
    }
    return -1;
  }

  private static void addIfAbsent(List<JsonNode> list, JsonNode item) {
    for (JsonNode existing : list) {
      if (sameValue(existing, item)) {
        return;
      }
    }
    list.add(item);
  }

  /** JSON value equality where numbers compare by value (1 == 1.0), as Go's float64 decoding does. */
  static boolean sameValue(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static JsonNode present(JsonNode node) {
    return node == null || node.isNull() ? null : node;
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> out = new ArrayList<>(array.size());
    array.forEach(out::add);
    return out;
  }

  private static ArrayNode toArray(List<JsonNode> items) {
    ArrayNode out = NODES.arrayNode();
    items.forEach(out::add);
    return out;
  }
}
