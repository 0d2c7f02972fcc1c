package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.databind.node.ObjectNode;

/**
 * The next version of one object, serialized before the store's write lock is taken: the expensive part of storing
 * a version (writing its JSON) happens on the caller's thread without the lock, and {@link #stamp} then only
 * splices the resourceVersion the store hands out into the bytes. The draft serializes its tree with a placeholder
 * resourceVersion (a per-JVM random token that no client can know, so it occurs nowhere else in practice) and
 * remembers where the placeholder sits; when it does not occur exactly once (a client copied the token into its
 * object), {@link #stamp} serializes the tree again instead, so the stored bytes are always exactly what the tree
 * serializes to with its resourceVersion.
 *
 * <p>Ownership: the draft takes ownership of the tree; nobody may change it afterwards (the stamp writes the
 * resourceVersion into it). Not thread-safe: built by one thread and stamped once, by the thread holding the
 * store's write lock.
 */
final class ObjectDraft {

  /** The placeholder resourceVersion; letters and digits only, so JSON writes it unescaped. */
  private static final String PLACEHOLDER = "berthrv" + Long.toHexString(ThreadLocalRandom.current().nextLong())
      + Long.toHexString(ThreadLocalRandom.current().nextLong());
  private static final byte[] PLACEHOLDER_BYTES = PLACEHOLDER.getBytes(StandardCharsets.US_ASCII);

  private final ResourceType type;
  private final ObjectNode tree;
  private final byte[] json;
  // index of the placeholder in json, or -1 to serialize again at stamp time
  private final int placeholderAt;

  /** Serializes {@code tree} (owned by the draft from now on) as a version of {@code type}. */
  ObjectDraft(ResourceType type, ObjectNode tree) {
    String name = Json.text(tree, "metadata", "name");
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("an object without metadata.name cannot be stored");
    }
    this.type = type;
    this.tree = tree;
    Json.metadata(tree).put("resourceVersion", PLACEHOLDER);
    this.json = Json.bytes(tree);
    this.placeholderAt = onlyOccurrence(json, PLACEHOLDER_BYTES);
  }

  ResourceType type() {
    return type;
  }

  /** The tree of this version; the draft owns it: read only. */
  ObjectNode tree() {
    return tree;
  }

  /** The stored version with resourceVersion {@code rv}; call once, under the store's write lock. */
  StoredObject stamp(long rv) {
    String version = Long.toString(rv);
    Json.metadata(tree).put("resourceVersion", version);
    byte[] out;
    if (placeholderAt < 0) {
      out = Json.bytes(tree);
    } else {
      out = splice(json, placeholderAt, PLACEHOLDER_BYTES.length, version.getBytes(StandardCharsets.US_ASCII));
    }
    return new StoredObject(type, tree, rv, out);
  }

  /** {@code bytes} with {@code length} bytes at {@code at} replaced by {@code with}. */
  static byte[] splice(byte[] bytes, int at, int length, byte[] with) {
    byte[] out = new byte[bytes.length - length + with.length];
    System.arraycopy(bytes, 0, out, 0, at);
    System.arraycopy(with, 0, out, at, with.length);
    System.arraycopy(bytes, at + length, out, at + with.length, bytes.length - at - length);
    return out;
  }

  /** The index of the only occurrence of {@code needle} in {@code haystack}; -1 when it is absent or repeated. */
  static int onlyOccurrence(byte[] haystack, byte[] needle) {
    int found = -1;
    int last = haystack.length - needle.length;
    byte first = needle[0];
    for (int i = 0; i <= last; i++) {
      if (haystack[i] != first) {
        continue;
      }
      int j = 1;
      while (j < needle.length && haystack[i + j] == needle[j]) {
        j++;
      }
      if (j == needle.length) {
        if (found >= 0) {
          return -1;
        }
        found = i;
        i += needle.length - 1;
      }
    }
    return found;
  }
}
