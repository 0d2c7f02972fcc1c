package io.berth.framework;

import java.util.HashMap;
import java.util.Map;

/**
 * A vector of resource amounts in the units the scheduler computes with: milli-CPU, bytes of
 * memory and ephemeral storage, a pod count and scalar (extended, hugepages) resources by name.
 * Mutable and not thread-safe: owned by one {@link NodeInfo} or one {@link PodInfo}; copy before
 * sharing.
 */
public final class Resource {
  public static final String CPU = "cpu";
  public static final String MEMORY = "memory";
  public static final String EPHEMERAL_STORAGE = "ephemeral-storage";
  public static final String PODS = "pods";

  private long milliCpu;
  private long memory;
  private long ephemeralStorage;
  private long allowedPodNumber;
  private Map<String, Long> scalarResources = Map.of();

  public long milliCpu() {
    return milliCpu;
  }

  public long memory() {
    return memory;
  }

  public long ephemeralStorage() {
    return ephemeralStorage;
  }

  public long allowedPodNumber() {
    return allowedPodNumber;
  }

  /** Scalar resources by name; read-only view. */
  public Map<String, Long> scalarResources() {
    return scalarResources.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(scalarResources);
  }

  public long scalar(String name) {
    return scalarResources.getOrDefault(name, 0L);
  }

  /** The amount of a resource by its Kubernetes name (cpu in milli-units). */
  public long get(String name) {
    return switch (name) {
      case CPU -> milliCpu;
      case MEMORY -> memory;
      case EPHEMERAL_STORAGE -> ephemeralStorage;
      case PODS -> allowedPodNumber;
      default -> scalar(name);
    };
  }

  public Resource setMilliCpu(long value) {
    milliCpu = value;
    return this;
  }

  public Resource setMemory(long value) {
    memory = value;
    return this;
  }

  public Resource setEphemeralStorage(long value) {
    ephemeralStorage = value;
    return this;
  }

  public Resource setAllowedPodNumber(long value) {
    allowedPodNumber = value;
    return this;
  }

  public Resource setScalar(String name, long value) {
    mutableScalars().put(name, value);
    return this;
  }

  /** Sets a resource by its Kubernetes name (cpu in milli-units). */
  public Resource set(String name, long value) {
    switch (name) {
      case CPU -> milliCpu = value;
      case MEMORY -> memory = value;
      case EPHEMERAL_STORAGE -> ephemeralStorage = value;
      case PODS -> allowedPodNumber = value;
      default -> setScalar(name, value);
    }
    return this;
  }

  /** Adds {@code other} to this, resource by resource. */
  public Resource add(Resource other) {
    milliCpu += other.milliCpu;
    memory += other.memory;
    ephemeralStorage += other.ephemeralStorage;
    allowedPodNumber += other.allowedPodNumber;
    if (!other.scalarResources.isEmpty()) {
      Map<String, Long> mine = mutableScalars();
      other.scalarResources.forEach((k, v) -> mine.merge(k, v, Long::sum));
    }
    return this;
  }

  /** Subtracts {@code other} from this, resource by resource. */
  public Resource subtract(Resource other) {
    milliCpu -= other.milliCpu;
    memory -= other.memory;
    ephemeralStorage -= other.ephemeralStorage;
    allowedPodNumber -= other.allowedPodNumber;
    if (!other.scalarResources.isEmpty()) {
      Map<String, Long> mine = mutableScalars();
      other.scalarResources.forEach((k, v) -> mine.merge(k, -v, Long::sum));
    }
    return this;
  }

  /** Raises each resource to at least the amount in {@code other}. */
  public Resource setMax(Resource other) {
    milliCpu = Math.max(milliCpu, other.milliCpu);
    memory = Math.max(memory, other.memory);
    ephemeralStorage = Math.max(ephemeralStorage, other.ephemeralStorage);
    allowedPodNumber = Math.max(allowedPodNumber, other.allowedPodNumber);
    if (!other.scalarResources.isEmpty()) {
      Map<String, Long> mine = mutableScalars();
      other.scalarResources.forEach((k, v) -> mine.merge(k, v, Math::max));
    }
    return this;
  }

  public Resource copy() {
    Resource copy = new Resource();
    copy.milliCpu = milliCpu;
    copy.memory = memory;
    copy.ephemeralStorage = ephemeralStorage;
    copy.allowedPodNumber = allowedPodNumber;
    copy.scalarResources = scalarResources.isEmpty() ? Map.of() : new HashMap<>(scalarResources);
    return copy;
  }

  private Map<String, Long> mutableScalars() {
    if (!(scalarResources instanceof HashMap)) {
      scalarResources = new HashMap<>(scalarResources);
    }
    return scalarResources;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Resource r && r.milliCpu == milliCpu && r.memory == memory
        && r.ephemeralStorage == ephemeralStorage && r.allowedPodNumber == allowedPodNumber
        && r.scalarResources.equals(scalarResources);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(milliCpu, memory, ephemeralStorage, allowedPodNumber, scalarResources);
  }

  @Override
  public String toString() {
    return "Resource{cpu=" + milliCpu + "m, memory=" + memory + ", ephemeral-storage="
        + ephemeralStorage + ", pods=" + allowedPodNumber
        + (scalarResources.isEmpty() ? "" : ", " + scalarResources) + "}";
  }
}
