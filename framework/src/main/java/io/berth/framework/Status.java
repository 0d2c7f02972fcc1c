package io.berth.framework;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of running a plugin: a {@link Code}, human-readable reasons, the cause of an error and
 * the plugin that failed. Immutable and thread-safe; {@link #SUCCESS} is shared.
 *
 * <p>Reasons are what {@code FailedScheduling} messages aggregate ("Insufficient cpu"), so a plugin
 * should use stable reason strings. {@link #plugin()} is filled by the runtime when a plugin
 * returns a non-success status ({@link #withPlugin(String)}).
 */
public final class Status {
  /** The shared success status. */
  public static final Status SUCCESS = new Status(Code.SUCCESS, List.of(), null, "");

  private final Code code;
  private final List<String> reasons;
  private final Throwable error;
  private final String plugin;
  // memo of the last withPlugin copy: a benign race (any thread may replace it with an equal one);
  // the copy's fields are final, so it is safely published
  private Status lastNamed;

  private Status(Code code, List<String> reasons, Throwable error, String plugin) {
    this.code = Objects.requireNonNull(code, "code");
    this.reasons = List.copyOf(reasons);
    this.error = error;
    this.plugin = plugin;
  }

  /** A status with the given code and reasons. */
  public static Status of(Code code, String... reasons) {
    if (code == Code.SUCCESS && reasons.length == 0) {
      return SUCCESS;
    }
    return new Status(code, List.of(reasons), null, "");
  }

  /** {@link Code#UNSCHEDULABLE} with reasons. */
  public static Status unschedulable(String... reasons) {
    return of(Code.UNSCHEDULABLE, reasons);
  }

  /** {@link Code#UNSCHEDULABLE_AND_UNRESOLVABLE} with reasons. */
  public static Status unresolvable(String... reasons) {
    return of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons);
  }

  /** {@link Code#SKIP}. */
  public static Status skip() {
    return of(Code.SKIP);
  }

  /** {@link Code#ERROR} with a message. */
  public static Status error(String message) {
    return new Status(Code.ERROR, List.of(message), null, "");
  }

  /** {@link Code#ERROR} caused by a throwable; its message becomes the reason. */
  public static Status asError(Throwable cause) {
    String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    return new Status(Code.ERROR, List.of(message), cause, "");
  }

  public Code code() {
    return code;
  }

  public List<String> reasons() {
    return reasons;
  }

  /** The reasons joined with ", " as upstream's {@code Status.Message()}. */
  public String message() {
    return String.join(", ", reasons);
  }

  public Optional<Throwable> error() {
    return Optional.ofNullable(error);
  }

  /** The plugin that returned this status; "" when not recorded. */
  public String plugin() {
    return plugin;
  }

  /**
   * A copy naming the plugin that returned it. The last copy made is remembered, so a status a
   * plugin shares between nodes stays one instance once the runtime has named the plugin.
   */
  public Status withPlugin(String pluginName) {
    if (pluginName.equals(plugin)) {
      return this;
    }
    Status named = lastNamed;
    if (named != null && named.plugin.equals(pluginName)) {
      return named;
    }
    named = new Status(code, reasons, error, pluginName);
    lastNamed = named;
    return named;
  }

  /** A copy with a different code, same reasons and plugin. */
  public Status withCode(Code newCode) {
    return newCode == code ? this : new Status(newCode, reasons, error, plugin);
  }

  public boolean isSuccess() {
    return code == Code.SUCCESS;
  }

  public boolean isSkip() {
    return code == Code.SKIP;
  }

  public boolean isWait() {
    return code == Code.WAIT;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was rejected, not failed. */
  public boolean isRejected() {
    return code == Code.UNSCHEDULABLE || code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        || code == Code.PENDING;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Status s && s.code == code && s.reasons.equals(reasons)
        && s.plugin.equals(plugin);
  }

  @Override
  public int hashCode() {
    return Objects.hash(code, reasons, plugin);
  }

  @Override
  public String toString() {
    return code.displayName() + (reasons.isEmpty() ? "" : ": " + message())
        + (plugin.isEmpty() ? "" : " (" + plugin + ")");
  }
}
