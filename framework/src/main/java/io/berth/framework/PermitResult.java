package io.berth.framework;

import java.time.Duration;

/** What a Permit plugin returns: Success, a rejection, or Wait with a timeout. Immutable. */
public record PermitResult(Status status, Duration timeout) {
  public static final PermitResult ALLOW = new PermitResult(Status.SUCCESS, Duration.ZERO);

  public static PermitResult waitFor(Duration timeout) {
    return new PermitResult(Status.of(Code.WAIT), timeout);
  }

  public static PermitResult of(Status status) {
    return new PermitResult(status, Duration.ZERO);
  }
}
