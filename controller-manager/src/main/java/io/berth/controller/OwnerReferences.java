package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * ControllerRefs: finding an object's controller ({@code metav1.GetControllerOf}), making the reference a controller
 * puts on what it creates ({@code metav1.NewControllerRef}), and the strategic merge patches with which a controller
 * adopts or releases an object ({@code ownerRefControllerPatch}, {@code GenerateDeleteOwnerRefStrategicMergeBytes}).
 * Both patches carry the patched object's own UID in {@code metadata.uid}, as upstream's do, so that a patch meant
 * for one incarnation of a name cannot silently apply to a re-created object. Stateless.
 */
public final class OwnerReferences {

  private OwnerReferences() {
  }

  /** The owner reference with {@code controller: true}, if any. */
  public static Optional<OwnerReference> controllerOf(HasMetadata obj) {
    List<OwnerReference> refs = obj.getMetadata().getOwnerReferences();
    if (refs == null) {
      return Optional.empty();
    }
    for (OwnerReference ref : refs) {
      if (Boolean.TRUE.equals(ref.getController())) {
        return Optional.of(ref);
      }
    }
    return Optional.empty();
  }

  /** A controller reference to {@code owner}: controller and blockOwnerDeletion true. */
  public static OwnerReference newControllerRef(HasMetadata owner, GroupVersionKind kind) {
    return new OwnerReferenceBuilder()
        .withApiVersion(kind.apiVersion())
        .withKind(kind.kind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * The strategic merge patch that makes {@code owner} the controller of the object with {@code dependentUid}: the
   * new ownerReference merged by uid into the list, and the dependent's UID as a precondition.
   */
  public static String adoptPatch(HasMetadata owner, GroupVersionKind kind, String dependentUid) {
    Map<String, Object> ref = new LinkedHashMap<>();
    ref.put("apiVersion", kind.apiVersion());
    ref.put("kind", kind.kind());
    ref.put("name", owner.getMetadata().getName());
    ref.put("uid", owner.getMetadata().getUid());
    ref.put("controller", true);
    ref.put("blockOwnerDeletion", true);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("ownerReferences", List.of(ref));
    metadata.put("uid", dependentUid);
    return Serialization.asJson(Map.of("metadata", metadata));
  }

  /**
   * The strategic merge patch that deletes the ownerReferences to {@code ownerUids} from the object with
   * {@code dependentUid} ({@code $patch: delete} by uid), with the dependent's UID as a precondition.
   */
  public static String releasePatch(String dependentUid, String... ownerUids) {
    List<Map<String, Object>> pieces = new java.util.ArrayList<>();
    for (String ownerUid : ownerUids) {
      Map<String, Object> piece = new LinkedHashMap<>();
      piece.put("$patch", "delete");
      piece.put("uid", ownerUid);
      pieces.add(piece);
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("ownerReferences", pieces);
    metadata.put("uid", dependentUid);
    return Serialization.asJson(Map.of("metadata", metadata));
  }
}
