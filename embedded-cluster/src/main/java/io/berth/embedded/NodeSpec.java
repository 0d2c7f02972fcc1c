package io.berth.embedded;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a simulated node looks like: name, capacity, labels (hostname, zone and region are set from the name and
 * the optional zone/region), taints and the images it already holds. Allocatable equals capacity. Immutable; build
 * with {@link #node(String)} and the {@code with*} methods.
 *
 * @param name node name (also the {@code kubernetes.io/hostname} label)
 * @param cpu cpu capacity as a quantity ({@code "4"}, {@code "3500m"})
 * @param memory memory capacity ({@code "16Gi"})
 * @param pods pod capacity
 * @param ephemeralStorage ephemeral-storage capacity
 * @param extended extended resources ({@code example.com/gpu -> "2"})
 * @param zone {@code topology.kubernetes.io/zone}, or null
 * @param region {@code topology.kubernetes.io/region}, or null
 * @param labels further labels
 * @param taints taints as (key, value, effect)
 * @param images image names with sizes in bytes, reported in {@code status.images}
 * @param gpus the GPUs the node publishes as a ResourceSlice ({@link GpuSpec#NONE} for none)
 */
public record NodeSpec(String name, String cpu, String memory, int pods, String ephemeralStorage,
    Map<String, String> extended, String zone, String region, Map<String, String> labels, List<Taint> taints,
    Map<String, Long> images, GpuSpec gpus) {

  /** A node taint. */
  public record Taint(String key, String value, String effect) {
    public Taint {
      Objects.requireNonNull(key, "taint key");
      Objects.requireNonNull(effect, "taint effect");
      if (!effect.equals("NoSchedule") && !effect.equals("PreferNoSchedule") && !effect.equals("NoExecute")) {
        throw new IllegalArgumentException("taint effect must be NoSchedule, PreferNoSchedule or NoExecute, got "
            + effect);
      }
    }
  }

  public NodeSpec {
    Objects.requireNonNull(name, "name");
    extended = Map.copyOf(extended);
    labels = Map.copyOf(labels);
    taints = List.copyOf(taints);
    images = Map.copyOf(images);
    Objects.requireNonNull(gpus, "gpus");
  }

  /** A node without GPUs. */
  public NodeSpec(String name, String cpu, String memory, int pods, String ephemeralStorage,
      Map<String, String> extended, String zone, String region, Map<String, String> labels, List<Taint> taints,
      Map<String, Long> images) {
    this(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images, GpuSpec.NONE);
  }

  /** A node with 4 cpu, 16Gi memory, 110 pods and 100Gi ephemeral storage. */
  public static NodeSpec node(String name) {
    return new NodeSpec(name, "4", "16Gi", 110, "100Gi", Map.of(), null, null, Map.of(), List.of(), Map.of());
  }

  public NodeSpec withCpu(String cpu) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withMemory(String memory) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withPods(int pods) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withEphemeralStorage(String storage) {
    return new NodeSpec(name, cpu, memory, pods, storage, extended, zone, region, labels, taints, images, gpus);
  }

  public NodeSpec withExtendedResource(String resource, String quantity) {
    Map<String, String> more = new LinkedHashMap<>(extended);
    more.put(resource, quantity);
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, more, zone, region, labels, taints, images, gpus);
  }

  public NodeSpec withZone(String zone) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withRegion(String region) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withLabel(String key, String value) {
    Map<String, String> more = new LinkedHashMap<>(labels);
    more.put(key, value);
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, more, taints, images, gpus);
  }

  public NodeSpec withTaint(String key, String value, String effect) {
    List<Taint> more = new java.util.ArrayList<>(taints);
    more.add(new Taint(key, value, effect));
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, more, images, gpus);
  }

  /** The node publishing {@code gpus} (a ResourceSlice of driver {@value SimulatedGpus#DRIVER}). */
  public NodeSpec withGpus(GpuSpec gpus) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  /** The node publishing {@code count} GPUs of the default model. */
  public NodeSpec withGpus(int count) {
    return withGpus(GpuSpec.of(count));
  }

  /** The same node under another name (GPUs, capacity, labels and taints kept). */
  public NodeSpec withName(String name) {
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, images,
        gpus);
  }

  public NodeSpec withImage(String image, long sizeBytes) {
    Map<String, Long> more = new LinkedHashMap<>(images);
    more.put(image, sizeBytes);
    return new NodeSpec(name, cpu, memory, pods, ephemeralStorage, extended, zone, region, labels, taints, more, gpus);
  }
}
