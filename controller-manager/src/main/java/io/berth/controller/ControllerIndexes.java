package io.berth.controller;

import io.berth.informer.IndexFunction;
import io.berth.informer.Indexer;
import io.berth.informer.SharedIndexInformer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The owner indexes the workload controllers put on shared informers, so that a controller finds what one owner
 * controls without scanning a namespace:
 * <ul>
 *   <li>{@code controllerUID}: objects by the UID of their controller ownerReference, none for orphans (upstream's
 *       {@code controllerUIDIndex}; on ReplicaSets, for the Deployment controller and a ReplicaSet's siblings);
 *   <li>{@code podControllerUID}: pods by their controller's UID, orphans under one key per namespace (upstream's
 *       {@code AddPodControllerUIDIndexer} in {@code controller_utils.go});
 *   <li>{@code orphanPodLabels}: orphan pods by namespace and each label, a Berth addition. Upstream's
 *       {@code FilterPodsByOwner} hands a ReplicaSet every orphan of its namespace, and a claim ignores those its
 *       selector does not match; with 100,000 orphans in a namespace that is a 100,000-pod list per sync. Through
 *       this index a claim gets only the orphans carrying a label the selector requires, which are all the orphans
 *       it could adopt, so the claim's outcome is the same.
 * </ul>
 * Stateless; the {@code ensure} methods are synchronized so that controllers sharing an informer add an index once.
 */
public final class ControllerIndexes {

  /** Upstream's {@code controllerUIDIndex}. */
  public static final String CONTROLLER_UID_INDEX = "controllerUID";
  /** Upstream's {@code PodControllerUIDIndex}. */
  public static final String POD_CONTROLLER_UID_INDEX = "podControllerUID";
  /** Upstream's {@code OrphanPodIndexKey}: orphans are indexed under it plus {@code "/"} plus their namespace. */
  public static final String ORPHAN_POD_INDEX_KEY = "_ORPHAN_POD";
  /** Orphan pods by {@code namespace/key=value}, one value per label (Berth's; see the class comment). */
  public static final String ORPHAN_POD_LABELS_INDEX = "orphanPodLabels";

  private ControllerIndexes() {
  }

  /** Indexes an object under its controller's UID. */
  public static <T extends HasMetadata> IndexFunction<T> byControllerUid() {
    return obj -> OwnerReferences.controllerOf(obj).map(ref -> List.of(ref.getUid())).orElse(List.of());
  }

  /**
   * Indexes a pod under its controller's UID or, when it has no controller, under
   * {@link #orphanPodIndexKey(String) its namespace's orphan key}; every pod has exactly one value.
   */
  public static IndexFunction<Pod> byPodControllerUid() {
    return pod -> List.of(OwnerReferences.controllerOf(pod).map(ref -> ref.getUid())
        .orElseGet(() -> orphanPodIndexKey(pod.getMetadata().getNamespace())));
  }

  /**
   * Indexes an orphan pod under {@link #orphanPodLabelKey} of each of its labels; a pod with a controller, or
   * without labels, under nothing.
   */
  public static IndexFunction<Pod> byOrphanPodLabels() {
    return pod -> {
      Map<String, String> labels = pod.getMetadata().getLabels();
      if (labels == null || labels.isEmpty() || OwnerReferences.controllerOf(pod).isPresent()) {
        return List.of();
      }
      String namespace = pod.getMetadata().getNamespace();
      List<String> values = new ArrayList<>(labels.size());
      for (Map.Entry<String, String> label : labels.entrySet()) {
        values.add(orphanPodLabelKey(namespace, label.getKey(), label.getValue()));
      }
      return values;
    };
  }

  /**
   * {@code namespace/key=value}: unambiguous, since a namespace holds no {@code /} and a label key and value no
   * {@code =}.
   */
  public static String orphanPodLabelKey(String namespace, String key, String value) {
    return namespace + "/" + key + "=" + value;
  }

  /** Upstream's {@code OrphanPodIndexKeyForNamespace}: the key the orphans of {@code namespace} share. */
  public static String orphanPodIndexKey(String namespace) {
    return ORPHAN_POD_INDEX_KEY + "/" + namespace;
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

  /**
   * Adds {@link #POD_CONTROLLER_UID_INDEX} to the pod {@code informer} unless another controller sharing it
   * already did. Call before the informer starts (when controllers are created).
   */
  public static synchronized void ensurePodControllerUidIndex(SharedIndexInformer<Pod> informer) {
    if (!informer.getIndexer().getIndexers().containsKey(POD_CONTROLLER_UID_INDEX)) {
      informer.addIndexers(Map.of(POD_CONTROLLER_UID_INDEX, byPodControllerUid()));
    }
  }

  /**
   * Adds {@link #ORPHAN_POD_LABELS_INDEX} to the pod {@code informer} unless another controller sharing it already
   * did. Call before the informer starts (when controllers are created).
   */
  public static synchronized void ensureOrphanPodLabelsIndex(SharedIndexInformer<Pod> informer) {
    if (!informer.getIndexer().getIndexers().containsKey(ORPHAN_POD_LABELS_INDEX)) {
      informer.addIndexers(Map.of(ORPHAN_POD_LABELS_INDEX, byOrphanPodLabels()));
    }
  }

  /**
   * The pods a claim by {@code owner} with {@code selector} must look at (upstream's {@code FilterPodsByOwner},
   * narrowed): those {@code owner}'s UID controls in its namespace, then the orphans of its namespace that carry
   * the label {@link Selector#requiredLabel} names (every orphan of the namespace when the selector requires none).
   * Pods controlled by anything else are left out: a claim ignores them. Also left out, unlike upstream but as the
   * namespace scan this replaces, are pods of other namespaces whose controllerRef names the owner's UID.
   *
   * <p>The lookups are separate reads of a live cache: a pod adopted or released between them is listed once (as
   * the orphan lookup, the later one, saw it), never twice, so a claim never counts one pod as two.
   *
   * @throws IllegalArgumentException if {@code pods} lacks {@link #POD_CONTROLLER_UID_INDEX} or
   *     {@link #ORPHAN_POD_LABELS_INDEX}
   */
  public static List<Pod> podsToClaim(Indexer<Pod> pods, ObjectMeta owner, Selector selector) {
    String namespace = owner.getNamespace();
    List<Pod> owned = pods.byIndex(POD_CONTROLLER_UID_INDEX, owner.getUid());
    List<Pod> orphans;
    Optional<Selector.RequiredLabel> required = selector.requiredLabel();
    if (required.isEmpty()) {
      orphans = pods.byIndex(POD_CONTROLLER_UID_INDEX, orphanPodIndexKey(namespace));
    } else {
      orphans = new ArrayList<>();
      for (String value : required.get().values()) {
        orphans.addAll(pods.byIndex(ORPHAN_POD_LABELS_INDEX,
            orphanPodLabelKey(namespace, required.get().key(), value)));
      }
    }
    // a pod adopted or released between the two lookups may be in both: keep the later lookup's copy
    Set<String> orphanNames = new HashSet<>();
    for (Pod pod : orphans) {
      orphanNames.add(pod.getMetadata().getName());
    }
    List<Pod> result = new ArrayList<>(owned.size() + orphans.size());
    for (Pod pod : owned) {
      if (namespace.equals(pod.getMetadata().getNamespace()) && !orphanNames.contains(pod.getMetadata().getName())) {
        result.add(pod);
      }
    }
    result.addAll(orphans);
    return result;
  }
}
