package io.berth.plugins.dynamicresources.structured;

/**
 * A device's identity across the cluster: driver, pool and device name, as in an allocation
 * result. Immutable.
 */
public record DeviceId(String driver, String pool, String device) {
  @Override
  public String toString() {
    return driver + "/" + pool + "/" + device;
  }
}
