package io.berth.controller;

import io.berth.informer.IndexFunction;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.Map;

/**
 * The {@code controllerUID} index upstream's workload controllers put on shared informers: objects indexed by the
 * UID of their controller ownerReference (none for orphans), so a controller finds what one owner controls without
 * scanning a namespace. Stateless.
 */
public final class ControllerIndexes {

  /** Upstream's {@code controllerUIDIndex}. */
  public static final String CONTROLLER_UID_INDEX = "controllerUID";

  private ControllerIndexes() {
  }

  /** Indexes an object under its controller's UID. */
  public static <T extends HasMetadata> IndexFunction<T> byControllerUid() {
    return obj -> OwnerReferences.controllerOf(obj).map(ref -> List.of(ref.getUid())).orElse(List.of());
  }

  /**
   * Adds {@link #CONTROLLER_UID_INDEX} to {@code informer} unless another controller sharing it already did. Call
   * before the informer starts (when controllers are created).
   */
  public static synchronized <T extends HasMetadata> void ensureControllerUidIndex(SharedIndexInformer<T> informer) {
    if (!informer.getIndexer().getIndexers().containsKey(CONTROLLER_UID_INDEX)) {
      informer.addIndexers(Map.of(CONTROLLER_UID_INDEX, byControllerUid()));
    }
  }
}
