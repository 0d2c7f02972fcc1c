package io.berth.embedded.patch;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Strategic merge patch ({@code application/strategic-merge-patch+json}) for one kind: what kubectl
 * {@code apply} (three-way patch with {@code $setElementOrder/…} and the last-applied annotation),
 * {@code cordon} ({@code {"spec":{"unschedulable":true}}}), {@code rollout restart} (a template
 * annotation) and {@code edit} send. Lists tagged {@code patchStrategy:"merge"} merge by their merge
 * key (containers by {@code name}, conditions by {@code type}, ownerReferences by {@code uid}…), other
 * lists are replaced, {@code null} deletes a key, and the {@code $patch}, {@code $retainKeys},
 * {@code $deleteFromPrimitiveList/…} and {@code $setElementOrder/…} directives apply as in
 * apimachinery's {@code strategicpatch} (see {@link StrategicMerger} for the details kept).
 *
 * <p>The tags come from a {@link PatchMeta} table for the built-in kinds ({@link #forKind}). A kind
 * outside kube-apiserver's own API groups (a custom resource) falls back to JSON merge patch semantics;
 * kube-apiserver itself answers 415 Unsupported Media Type there, which the server may prefer to do by
 * checking {@link #isStrategic()}.
 *
 * <p>Neither argument of {@link #apply} is mutated. Instances are immutable and thread-safe.
 */
public final class StrategicMergePatch {

  private final Optional<PatchMeta> meta; // empty: JSON merge patch fallback

  private StrategicMergePatch(Optional<PatchMeta> meta) {
    this.meta = meta;
  }

  /**
   * The patcher for a kind.
   *
   * @param group the API group, "" for core
   * @param kind the kind, e.g. {@code Pod}
   */
  public static StrategicMergePatch forKind(String group, String kind) {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(kind, "kind");
    return new StrategicMergePatch(BuiltinPatchMetas.forKind(group, kind));
  }

  /** The patcher for the kind named by an object's {@code apiVersion} and {@code kind}. */
  public static StrategicMergePatch forObject(JsonNode object) {
    String apiVersion = object.path("apiVersion").asString("");
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    return forKind(group, object.path("kind").asString(""));
  }

  /** A patcher driven by custom metadata, e.g. for a type not in the built-in table. */
  public static StrategicMergePatch withMeta(PatchMeta meta) {
    return new StrategicMergePatch(Optional.of(Objects.requireNonNull(meta, "meta")));
  }

  /** False when this kind falls back to JSON merge patch semantics. */
  public boolean isStrategic() {
    return meta.isPresent();
  }

  /**
   * Applies {@code patch} to a copy of {@code original}.
   *
   * @return the patched object, a new tree
   * @throws PatchException 400 if the patch is not an object or a directive is malformed, 422 if it
   *     cannot be applied to this object (see {@link PatchException})
   */
  public ObjectNode apply(ObjectNode original, JsonNode patch) {
    Objects.requireNonNull(original, "original");
    if (patch == null || !patch.isObject()) {
      throw PatchException.badRequest("strategic merge patch must be a JSON object, got "
          + (patch == null ? "nothing" : patch.getNodeType()));
    }
    if (meta.isEmpty()) {
      return JsonMergePatch.applyToObject(original, patch);
    }
    return StrategicMerger.mergeMap(original.deepCopy(), ((ObjectNode) patch).deepCopy(), meta.get());
  }
}
