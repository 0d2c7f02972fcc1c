package io.berth.scheduler;

import io.berth.framework.Code;
import io.berth.framework.Status;
import java.util.Optional;

/**
 * Carries a {@link FitError} inside a rejection {@link Status} (as upstream wraps the FitError in
 * the status's error), so the failure handler can read the diagnosis back. Immutable.
 */
final class FitStatus {
  private final FitError fitError;
  private final Code code;

  FitStatus(FitError fitError) {
    this(fitError, Code.UNSCHEDULABLE);
  }

  FitStatus(FitError fitError, Code code) {
    this.fitError = fitError;
    this.code = code;
  }

  Status status() {
    return Status.asError(fitError).withCode(code);
  }

  static Optional<FitError> fitErrorOf(Status status) {
    return status.error().filter(FitError.class::isInstance).map(FitError.class::cast);
  }
}
