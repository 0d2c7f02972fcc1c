package io.berth.scheduler.queue;

import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;

/**
 * Per-pod exponential backoff as kube-scheduler computes it: no backoff before the first attempt,
 * then {@code initial * 2^(attempts-1)} capped at {@code max}, counted from the pod's queue
 * timestamp (when it last came back). Immutable after construction and thread-safe; the
 * {@link QueuedPodInfo} it reads must be guarded by the caller.
 */
final class PodBackoff {
  private final Duration initial;
  private final Duration max;

  PodBackoff(Duration initial, Duration max) {
    if (initial.isNegative() || max.isNegative()) {
      throw new IllegalArgumentException("backoff durations must not be negative: initial="
          + initial + ", max=" + max);
    }
    this.initial = initial;
    this.max = max;
  }

  /**
   * The backoff for a pod with this many attempts. Doubling by addition and comparing against
   * {@code max - d} first (upstream's calculateBackoffDuration) cannot overflow for any count.
   */
  Duration duration(int attempts) {
    if (attempts <= 0) {
      return Duration.ZERO;
    }
    Duration d = initial;
    for (int i = 1; i < attempts; i++) {
      if (d.compareTo(max.minus(d)) > 0) {
        return max;
      }
      d = d.plus(d);
    }
    return d;
  }

  /** When the pod's backoff ends. */
  Instant expiry(QueuedPodInfo pInfo) {
    return pInfo.timestamp().plus(duration(pInfo.attempts()));
  }

  /** Whether the pod is still backing off at {@code now}; a gated pod never is. */
  boolean isBackingOff(QueuedPodInfo pInfo, Instant now) {
    return !pInfo.isGated() && expiry(pInfo).isAfter(now);
  }
}
