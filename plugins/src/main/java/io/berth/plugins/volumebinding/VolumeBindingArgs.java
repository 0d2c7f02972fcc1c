package io.berth.plugins.volumebinding;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;

/**
 * VolumeBinding's arguments ({@code VolumeBindingArgs} of {@code kubescheduler.config.k8s.io/v1}):
 * how long PreBind waits for the claims to be bound. {@code shape} belongs to the
 * VolumeCapacityPriority feature, off in v1.32, so it is rejected as upstream does with the gate
 * off. Immutable.
 *
 * @param bindTimeoutSeconds PreBind's wait, in seconds; positive
 */
public record VolumeBindingArgs(long bindTimeoutSeconds) {
  public static final long DEFAULT_BIND_TIMEOUT_SECONDS = 600;
  public static final VolumeBindingArgs DEFAULTS =
      new VolumeBindingArgs(DEFAULT_BIND_TIMEOUT_SECONDS);

  public VolumeBindingArgs {
    if (bindTimeoutSeconds < 0) {
      throw new IllegalArgumentException("bindTimeoutSeconds: Invalid value: " + bindTimeoutSeconds
          + ": invalid BindTimeoutSeconds, should not be a negative value");
    }
    if (bindTimeoutSeconds == 0) {
      throw new IllegalArgumentException("bindTimeoutSeconds: Invalid value: 0: invalid"
          + " BindTimeoutSeconds, should be a positive value");
    }
  }

  /**
   * Parses the pluginConfig args (a YAML map; {@code apiVersion} and {@code kind} are ignored).
   *
   * @throws IllegalArgumentException naming the field of an invalid or unknown entry
   */
  public static VolumeBindingArgs parse(Map<String, Object> args) {
    long timeout = DEFAULT_BIND_TIMEOUT_SECONDS;
    for (Map.Entry<String, Object> e : args.entrySet()) {
      Object value = e.getValue();
      switch (e.getKey()) {
        case "apiVersion", "kind" -> { }
        case "bindTimeoutSeconds" -> {
          if (value != null) {
            timeout = integer(value);
          }
        }
        case "shape" -> {
          if (value != null) {
            throw new IllegalArgumentException("shape: Invalid value: " + value
                + ": unexpected field `shape`, remove it or turn on the feature gate"
                + " VolumeCapacityPriority");
          }
        }
        default -> throw new IllegalArgumentException("unknown field \"" + e.getKey() + "\"");
      }
    }
    return new VolumeBindingArgs(timeout);
  }

  private static long integer(Object value) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    try {
      if (value instanceof BigInteger b) {
        return b.longValueExact();
      }
      if (value instanceof Number n) {
        return new BigDecimal(n.toString()).longValueExact();
      }
    } catch (ArithmeticException | NumberFormatException e) {
      // reported below
    }
    String shown = value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    throw new IllegalArgumentException("bindTimeoutSeconds: Invalid value: " + shown
        + ": must be an integer");
  }

  /** The timeout as a duration. */
  public Duration bindTimeout() {
    return Duration.ofSeconds(bindTimeoutSeconds);
  }
}
