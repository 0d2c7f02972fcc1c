package io.berth.framework;

/**
 * Carries a non-success {@link Status} out of a plugin method that returns a value (Score).
 * Immutable. The runtime catches it and fails the scheduling cycle with the status.
 */
public final class StatusException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient Status status;

  public StatusException(Status status) {
    super(status.message(), status.error().orElse(null));
    this.status = status;
  }

  public Status status() {
    return status;
  }
}
