package io.berth.embedded.patch;

import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Merge Patch, RFC 7386 ({@code application/merge-patch+json}): an object patch merges into the
 * target key by key, recursively; a {@code null} value removes the key; any other value (arrays
 * included) replaces the target's value wholesale; a patch that is not an object replaces the whole
 * target. kubectl {@code label}, {@code annotate} and {@code scale} send these, as do clients that cannot
 * do strategic merge (custom resources).
 *
 * <p>Neither argument is mutated; the result is a new tree sharing no nodes with them. Stateless,
 * thread-safe.
 */
public final class JsonMergePatch {

  private JsonMergePatch() {}

  /**
   * Applies {@code patch} to {@code target} as RFC 7386 defines.
   *
   * @param target the current document; {@code null} or a missing node is treated as absent
   * @param patch the merge patch
   * @return a new document
   */
  public static JsonNode apply(JsonNode target, JsonNode patch) {
    Objects.requireNonNull(patch, "patch");
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject()
        ? ((ObjectNode) target).deepCopy()
        : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> entry : patch.properties()) {
      String name = entry.getKey();
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        result.remove(name);
      } else {
        result.set(name, apply(result.get(name), value));
      }
    }
    return result;
  }

  /**
   * Applies an object patch to an API object, as the embedded server's PATCH handler needs.
   *
   * @throws PatchException {@link PatchException.Status#BAD_REQUEST} if {@code patch} is not a JSON object
   *     (it would replace the whole object with a non-object)
   */
  public static ObjectNode applyToObject(ObjectNode target, JsonNode patch) {
    Objects.requireNonNull(target, "target");
    if (patch == null || !patch.isObject()) {
      throw PatchException.badRequest("merge patch must be a JSON object, got "
          + (patch == null ? "nothing" : patch.getNodeType()));
    }
    return (ObjectNode) apply(target, patch);
  }
}
