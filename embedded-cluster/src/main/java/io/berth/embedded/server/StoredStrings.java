package io.berth.embedded.server;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Deduplicates the strings a {@link StoredObject} keeps beside its JSON: namespaces, label keys and values repeat
 * across thousands of objects (every pod of a Deployment carries the same labels), so they are interned in the JVM's
 * string table, which drops an entry once no object refers to it (a label value unique to one pod costs nothing
 * after that pod is gone). Stateless; thread-safe.
 */
final class StoredStrings {

  private StoredStrings() {
  }

  /** {@code value} interned, or {@code absent} when it is null. */
  static String intern(String value, String absent) {
    return value == null ? absent : value.intern();
  }

  /** The object's {@code metadata.labels} as a compact immutable map of interned strings. */
  @SuppressWarnings("unchecked")
  static Map<String, String> labels(JsonNode tree) {
    JsonNode labels = Json.at(tree, "metadata", "labels");
    if (labels == null || !labels.isObject() || labels.isEmpty()) {
      return Map.of();
    }
    Map.Entry<String, String>[] entries = new Map.Entry[labels.size()];
    int i = 0;
    for (Map.Entry<String, JsonNode> e : labels.properties()) {
      JsonNode v = e.getValue();
      String value = v.isString() ? v.stringValue() : v.toString();
      entries[i++] = Map.entry(e.getKey().intern(), value.intern());
    }
    return Map.ofEntries(entries);
  }

  /** The uids of the object's {@code metadata.ownerReferences}, interned, as an immutable list. */
  static List<String> ownerUids(JsonNode tree) {
    JsonNode refs = Json.at(tree, "metadata", "ownerReferences");
    if (refs == null || !refs.isArray() || refs.isEmpty()) {
      return List.of();
    }
    String[] uids = new String[refs.size()];
    int n = 0;
    for (JsonNode r : refs.values()) {
      String uid = Json.text(r, "uid");
      if (uid != null) {
        uids[n++] = uid.intern();
      }
    }
    return n == uids.length ? List.of(uids) : List.of(java.util.Arrays.copyOf(uids, n));
  }
}
