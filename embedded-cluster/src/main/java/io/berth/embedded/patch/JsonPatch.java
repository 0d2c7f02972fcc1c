package io.berth.embedded.patch;

import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.EnumSet;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Patch, RFC 6902 ({@code application/json-patch+json}), the type fabric8's {@code edit()} and
 * {@code patch(PatchContext.of(JSON), …)} send. Delegates to fabric8's bundled zjsonpatch (the
 * Jackson 3 build) with removal of a missing path forbidden, as RFC 6902 and kube-apiserver's
 * json-patch library require.
 *
 * <p>Failures map as kube-apiserver maps them: a body that is not a JSON array is
 * {@link PatchException.Status#BAD_REQUEST 400}; any operation that cannot be applied (a failed
 * {@code test}, a missing path or {@code from}, an index out of range, an unknown {@code op}, an
 * operation missing {@code path} or {@code value}) is {@link PatchException.Status#UNPROCESSABLE_ENTITY
 * 422}. Neither argument is mutated. Stateless, thread-safe.
 */
public final class JsonPatch {

  private static final EnumSet<CompatibilityFlags> FLAGS = EnumSet.of(CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT);

  private JsonPatch() {}

  /**
   * Applies the operations in order to a copy of {@code target}; all or nothing.
   *
   * @param target the current object
   * @param patch a JSON array of operations
   * @return the patched object, a new tree
   * @throws PatchException 400 if {@code patch} is not an array, 422 if an operation fails or the result
   *     is not a JSON object
   */
  public static ObjectNode apply(ObjectNode target, JsonNode patch) {
    Objects.requireNonNull(target, "target");
    if (patch == null || !patch.isArray()) {
      throw PatchException.badRequest("json patch must be a JSON array of operations, got "
          + (patch == null ? "nothing" : patch.getNodeType()));
    }
    JsonNode result;
    try {
      result = io.fabric8.zjsonpatch.JsonPatch.apply(patch, target, FLAGS);
    } catch (JsonPatchException e) {
      throw new PatchException(PatchException.Status.UNPROCESSABLE_ENTITY, e.getMessage(), e);
    }
    if (!result.isObject()) {
      throw PatchException.unprocessable("json patch replaced the object with a " + result.getNodeType());
    }
    return (ObjectNode) result;
  }
}
