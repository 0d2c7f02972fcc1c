package io.berth.controller.deployment;

import java.time.Duration;
import java.util.Objects;

/**
 * When to sync a Deployment again to check its progress deadline (upstream requeueStuckDeployment's -1, 0,
 * or a duration). Immutable value.
 *
 * @param kind  whether and how to requeue
 * @param delay for {@link Kind#AFTER}: the delay to pass to the queue's addAfter (the time left before the
 *              deadline plus one second, which upstream adds to absorb millisecond skew); zero otherwise
 */
public record ProgressRecheck(Kind kind, Duration delay) {

  /** What the controller does with the Deployment's key. */
  public enum Kind {
    /** No deadline to watch (none set, no Progressing condition, complete, or already timed out). */
    NONE,
    /** Less than a second left: add the key rate-limited now. */
    NOW_RATE_LIMITED,
    /** Add the key after {@link #delay()}. */
    AFTER
  }

  public static final ProgressRecheck NONE = new ProgressRecheck(Kind.NONE, Duration.ZERO);
  public static final ProgressRecheck NOW_RATE_LIMITED = new ProgressRecheck(Kind.NOW_RATE_LIMITED,
      Duration.ZERO);

  public ProgressRecheck {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(delay, "delay");
  }

  public static ProgressRecheck after(Duration delay) {
    return new ProgressRecheck(Kind.AFTER, delay);
  }
}
