package io.berth.framework;

/**
 * The kinds of objects whose changes can make an unschedulable pod schedulable. {@link #POD}
 * covers both {@link #ASSIGNED_POD} and {@link #UNSCHEDULED_POD}; {@link #WILDCARD} matches
 * everything. Immutable.
 */
public enum EventResource {
  POD("Pod"),
  ASSIGNED_POD("AssignedPod"),
  UNSCHEDULED_POD("UnschedulablePod"),
  NODE("Node"),
  PERSISTENT_VOLUME("PersistentVolume"),
  PERSISTENT_VOLUME_CLAIM("PersistentVolumeClaim"),
  STORAGE_CLASS("storage.k8s.io/StorageClass"),
  CSI_NODE("storage.k8s.io/CSINode"),
  CSI_DRIVER("storage.k8s.io/CSIDriver"),
  CSI_STORAGE_CAPACITY("storage.k8s.io/CSIStorageCapacity"),
  /** {@code resource.k8s.io/v1} ResourceClaim (Dynamic Resource Allocation). */
  RESOURCE_CLAIM("ResourceClaim"),
  /** {@code resource.k8s.io/v1} ResourceSlice. */
  RESOURCE_SLICE("ResourceSlice"),
  /** {@code resource.k8s.io/v1} DeviceClass. */
  DEVICE_CLASS("DeviceClass"),
  WILDCARD("*");

  private final String label;

  EventResource(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Whether a registration for this resource covers an event on {@code other}. */
  public boolean covers(EventResource other) {
    return this == WILDCARD || this == other
        || (this == POD && (other == ASSIGNED_POD || other == UNSCHEDULED_POD));
  }
}
