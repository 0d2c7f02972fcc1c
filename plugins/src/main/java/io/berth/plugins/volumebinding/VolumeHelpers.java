package io.berth.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The storage vocabulary upstream keeps in {@code component-helpers/storage/volume} and
 * {@code storage/ephemeral}: annotation names, a claim's and a volume's class, what "bound"
 * means, and the name of a generic ephemeral volume's claim. Stateless and thread-safe.
 */
final class VolumeHelpers {
  /** On a PVC: the binding went through its initial setup (value irrelevant). */
  static final String ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
  /** On a PV or PVC: the binding was made by a controller, not pre-bound by a user. */
  static final String ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
  /** On a PVC: the node the scheduler chose, which triggers dynamic provisioning. */
  static final String ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node";
  /** The legacy class annotation, which wins over {@code spec.storageClassName}. */
  static final String ANN_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";
  /** A provisioner name meaning that the class cannot provision dynamically. */
  static final String NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner";
  static final String WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer";
  static final String STORAGE = "storage";
  static final String PHASE_AVAILABLE = "Available";
  static final String PHASE_BOUND = "Bound";
  static final String CLAIM_LOST = "Lost";

  private VolumeHelpers() {}

  static Map<String, String> annotations(HasMetadata o) {
    Map<String, String> a = o.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  static boolean hasAnnotation(HasMetadata o, String key) {
    return annotations(o).containsKey(key);
  }

  static String claimClass(PersistentVolumeClaim pvc) {
    String annotated = annotations(pvc).get(ANN_STORAGE_CLASS);
    if (annotated != null) {
      return annotated;
    }
    String name = pvc.getSpec() == null ? null : pvc.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  static String volumeClass(PersistentVolume pv) {
    String annotated = annotations(pv).get(ANN_STORAGE_CLASS);
    if (annotated != null) {
      return annotated;
    }
    String name = pv.getSpec() == null ? null : pv.getSpec().getStorageClassName();
    return name == null ? "" : name;
  }

  static String volumeName(PersistentVolumeClaim pvc) {
    String name = pvc.getSpec() == null ? null : pvc.getSpec().getVolumeName();
    return name == null ? "" : name;
  }

  static String claimKey(PersistentVolumeClaim pvc) {
    return pvc.getMetadata().getNamespace() + "/" + pvc.getMetadata().getName();
  }

  /** Bound and past the initial setup: a volume name and the bind-completed annotation. */
  static boolean isFullyBound(PersistentVolumeClaim pvc) {
    return !volumeName(pvc).isEmpty() && hasAnnotation(pvc, ANN_BIND_COMPLETED);
  }

  /** The PV's claimRef names the claim (and its UID, when the ref has one). */
  static boolean isVolumeBoundToClaim(PersistentVolume pv, PersistentVolumeClaim pvc) {
    ObjectReference ref = pv.getSpec() == null ? null : pv.getSpec().getClaimRef();
    if (ref == null) {
      return false;
    }
    if (!Objects.equals(ref.getName(), pvc.getMetadata().getName())
        || !Objects.equals(ref.getNamespace(), pvc.getMetadata().getNamespace())) {
      return false;
    }
    String uid = ref.getUid();
    return uid == null || uid.isEmpty() || uid.equals(pvc.getMetadata().getUid());
  }

  static List<Volume> volumes(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
      return List.of();
    }
    return pod.getSpec().getVolumes();
  }

  /** The claim a volume uses: its PVC, or the claim generated for a generic ephemeral volume. */
  static Optional<String> claimName(Pod pod, Volume v) {
    if (v.getPersistentVolumeClaim() != null) {
      return Optional.ofNullable(v.getPersistentVolumeClaim().getClaimName());
    }
    if (v.getEphemeral() != null) {
      return Optional.of(pod.getMetadata().getName() + "-" + v.getName());
    }
    return Optional.empty();
  }

  /** Why a generic ephemeral volume's claim is not the pod's own, if it is not. */
  static Optional<String> ephemeralOwnershipError(Pod pod, PersistentVolumeClaim pvc) {
    List<OwnerReference> refs = pvc.getMetadata().getOwnerReferences();
    if (refs != null) {
      for (OwnerReference ref : refs) {
        if (Boolean.TRUE.equals(ref.getController())
            && Objects.equals(ref.getUid(), pod.getMetadata().getUid())) {
          return Optional.empty();
        }
      }
    }
    return Optional.of("PVC " + claimKey(pvc) + " was not created for pod "
        + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()
        + " (pod is not owner)");
  }

  /** Who assumes volumes for a pod: its UID, or its key when the pod has none. */
  static String owner(Pod pod) {
    String uid = pod.getMetadata().getUid();
    return uid != null && !uid.isEmpty() ? uid
        : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
