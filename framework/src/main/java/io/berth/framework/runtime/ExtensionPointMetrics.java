package io.berth.framework.runtime;

/**
 * Where the runtime reports how long each extension point took, for
 * {@code scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}}.
 * Implementations must be thread-safe; {@link #NOOP} discards.
 */
@FunctionalInterface
public interface ExtensionPointMetrics {
  ExtensionPointMetrics NOOP = (point, status, profile, nanos) -> { };

  /** {@code point} is upstream's name ("Filter", "PreBind"), {@code status} the code's name. */
  void observe(String point, String status, String profile, long nanos);
}
