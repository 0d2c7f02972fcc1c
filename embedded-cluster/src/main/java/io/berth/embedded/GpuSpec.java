package io.berth.embedded;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The GPUs a simulated node publishes through Dynamic Resource Allocation: how many, of which model and with how
 * much memory each. A node with {@code count > 0} gets one ResourceSlice of driver {@value SimulatedGpus#DRIVER}
 * (see {@link SimulatedGpus}). Immutable.
 *
 * @param count devices on the node, 0 for none, at most {@value #MAX_COUNT} (one slice holds 128 devices)
 * @param model the {@code model} string attribute of every device ({@code a100})
 * @param memory the {@code memory} capacity of every device, a quantity ({@code 80Gi})
 */
public record GpuSpec(int count, String model, String memory) {

  private static final Pattern QUANTITY = Pattern.compile("[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?");

  /** The most devices one node publishes (upstream's {@code ResourceSliceMaxDevices}: one slice per node). */
  public static final int MAX_COUNT = 128;
  /** The model when none is given. */
  public static final String DEFAULT_MODEL = "a100";
  /** The per-device memory when none is given. */
  public static final String DEFAULT_MEMORY = "80Gi";
  /** No GPUs. */
  public static final GpuSpec NONE = new GpuSpec(0, DEFAULT_MODEL, DEFAULT_MEMORY);

  public GpuSpec {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(memory, "memory");
    if (count < 0 || count > MAX_COUNT) {
      throw new IllegalArgumentException("gpus: count must be between 0 and " + MAX_COUNT + ", got " + count);
    }
    if (model.isEmpty() || model.length() > 64) {
      throw new IllegalArgumentException("gpus: model must be a non-empty string of at most 64 characters, got \""
          + model + "\"");
    }
    if (!QUANTITY.matcher(memory).matches()) {
      throw new IllegalArgumentException("gpus: memory must be a quantity such as \"80Gi\", got \"" + memory + "\"");
    }
  }

  /** {@code count} GPUs of the default model and memory. */
  public static GpuSpec of(int count) {
    return new GpuSpec(count, DEFAULT_MODEL, DEFAULT_MEMORY);
  }

  public GpuSpec withModel(String model) {
    return new GpuSpec(count, model, memory);
  }

  public GpuSpec withMemory(String memory) {
    return new GpuSpec(count, model, memory);
  }
}
