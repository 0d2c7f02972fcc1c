package io.berth.plugins.dynamicresources.structured;

import java.util.Objects;

/**
 * A device's identity across the cluster: driver, pool and device name, as in an allocation
 * result. Immutable; its hash is computed once (sets of device ids are rebuilt every scheduling
 * cycle and probed for every device Filter considers).
 */
public final class DeviceId {
  private final String driver;
  private final String pool;
  private final String device;
  private final int hash;

  public DeviceId(String driver, String pool, String device) {
    this.driver = driver;
    this.pool = pool;
    this.device = device;
    this.hash = Objects.hash(driver, pool, device);
  }

  public String driver() {
    return driver;
  }

  public String pool() {
    return pool;
  }

  public String device() {
    return device;
  }

  @Override
  public boolean equals(Object o) {
    return o == this || (o instanceof DeviceId d && hash == d.hash
        && Objects.equals(device, d.device) && Objects.equals(pool, d.pool)
        && Objects.equals(driver, d.driver));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return driver + "/" + pool + "/" + device;
  }
}
