package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The devices of one ResourceSlice object, each with its {@link DeviceView} (and so its memo of
 * selector outcomes), built on first use: a device whose capacity cannot be read fails the Filter
 * that reaches it, not the cycle that indexed the slice. One instance per slice version, shared
 * by every {@link Pools} built while that version is current. Thread-safe: the views are set once
 * by compare-and-set (a racing second build is discarded).
 */
final class SliceDevices {
  final ResourceSlice slice;
  private final List<Device> devices;
  private final AtomicReferenceArray<DeviceView> views;

  SliceDevices(ResourceSlice slice) {
    this.slice = slice;
    this.devices = Pools.devices(slice);
    this.views = new AtomicReferenceArray<>(devices.size());
  }

  List<Device> devices() {
    return devices;
  }

  DeviceView view(int index) {
    DeviceView v = views.get(index);
    if (v == null) {
      v = new DeviceView(slice.getSpec().getDriver(), devices.get(index));
      if (!views.compareAndSet(index, null, v)) {
        v = views.get(index);
      }
    }
    return v;
  }

  /**
   * Whether {@code other} is the same version of the slice: the same object, or the same uid and
   * resourceVersion (a slice without a resourceVersion matches only itself).
   */
  boolean sameVersion(ResourceSlice other) {
    if (other == slice) {
      return true;
    }
    String version = slice.getMetadata().getResourceVersion();
    return version != null && !version.isEmpty()
        && version.equals(other.getMetadata().getResourceVersion())
        && Objects.equals(slice.getMetadata().getUid(), other.getMetadata().getUid());
  }
}
