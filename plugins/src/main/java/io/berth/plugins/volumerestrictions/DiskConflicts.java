package io.berth.plugins.volumerestrictions;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.AWSElasticBlockStoreVolumeSource;
import io.fabric8.kubernetes.api.model.GCEPersistentDiskVolumeSource;
import io.fabric8.kubernetes.api.model.ISCSIVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.RBDVolumeSource;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The inline-volume conflict rules of upstream's VolumeRestrictions: the same GCE PD, iSCSI IQN
 * or Ceph RBD image may be shared only when every user mounts it read-only, and an AWS EBS volume
 * ID may never be shared. Stateless and thread-safe.
 */
final class DiskConflicts {
  private DiskConflicts() {}

  /** Whether the volume is of a kind these rules cover at all. */
  static boolean needsCheck(Volume v) {
    return v.getGcePersistentDisk() != null || v.getAwsElasticBlockStore() != null
        || v.getRbd() != null || v.getIscsi() != null;
  }

  /** Whether {@code pod} can join the node without conflicting with the pods already there. */
  static boolean satisfied(Pod pod, NodeInfo nodeInfo) {
    for (Volume v : volumes(pod)) {
      if (!needsCheck(v)) {
        continue;
      }
      for (PodInfo existing : nodeInfo.pods()) {
        if (conflicts(v, existing.pod())) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether any checked volume of {@code pod} conflicts with a volume of {@code other}. */
  static boolean anyConflict(Pod pod, Pod other) {
    for (Volume v : volumes(pod)) {
      if (needsCheck(v) && conflicts(v, other)) {
        return true;
      }
    }
    return false;
  }

  static boolean conflicts(Volume volume, Pod existingPod) {
    for (Volume existing : volumes(existingPod)) {
      if (gceConflict(volume.getGcePersistentDisk(), existing.getGcePersistentDisk())
          || awsConflict(volume.getAwsElasticBlockStore(), existing.getAwsElasticBlockStore())
          || iscsiConflict(volume.getIscsi(), existing.getIscsi())
          || rbdConflict(volume.getRbd(), existing.getRbd())) {
        return true;
      }
    }
    return false;
  }

  static List<Volume> volumes(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
      return List.of();
    }
    return pod.getSpec().getVolumes();
  }

  private static boolean gceConflict(GCEPersistentDiskVolumeSource a,
      GCEPersistentDiskVolumeSource b) {
    return a != null && b != null && str(a.getPdName()).equals(str(b.getPdName()))
        && !(ro(a.getReadOnly()) && ro(b.getReadOnly()));
  }

  private static boolean awsConflict(AWSElasticBlockStoreVolumeSource a,
      AWSElasticBlockStoreVolumeSource b) {
    return a != null && b != null && str(a.getVolumeID()).equals(str(b.getVolumeID()));
  }

  private static boolean iscsiConflict(ISCSIVolumeSource a, ISCSIVolumeSource b) {
    return a != null && b != null && str(a.getIqn()).equals(str(b.getIqn()))
        && !(ro(a.getReadOnly()) && ro(b.getReadOnly()));
  }

  // One RBD image is identified by a shared Ceph monitor, the same pool and the same image name.
  private static boolean rbdConflict(RBDVolumeSource a, RBDVolumeSource b) {
    return a != null && b != null && overlap(a.getMonitors(), b.getMonitors())
        && str(a.getPool()).equals(str(b.getPool()))
        && str(a.getImage()).equals(str(b.getImage()))
        && !(ro(a.getReadOnly()) && ro(b.getReadOnly()));
  }

  private static boolean overlap(List<String> a, List<String> b) {
    if (a == null || b == null || a.isEmpty() || b.isEmpty()) {
      return false;
    }
    Set<String> smaller = new HashSet<>(a.size() <= b.size() ? a : b);
    for (String s : a.size() <= b.size() ? b : a) {
      if (smaller.contains(s)) {
        return true;
      }
    }
    return false;
  }

  private static boolean ro(Boolean b) {
    return Boolean.TRUE.equals(b);
  }

  // Go compares zero-valued strings, so an absent field equals an empty one.
  private static String str(String s) {
    return Objects.requireNonNullElse(s, "");
  }
}
