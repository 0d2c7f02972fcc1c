package io.berth.scheduler.queue;

import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;

/**
 * Per-pod exponential backoff as kube-scheduler computes it: no backoff before the first attempt,
 * then {@code initial * 2^(attempts-1)} capped at {@code max}, counted from the pod's queue
 * timestamp (when it last came back). With SchedulerPopFromBackoffQ (KEP-5142) expiries are
 * aligned down to one-second ordering windows and a pod whose expiry falls in the current window
 * still backs off, so that each flush moves whole windows. Immutable after construction and
 * thread-safe; the {@link QueuedPodInfo} it reads (and whose expiry it caches) must be guarded by
 * the caller.
 */
final class PodBackoff {
  /** The backoffQ ordering window of KEP-5142, also the flush interval of backoffQ. */
  static final Duration ORDERING_WINDOW = Duration.ofSeconds(1);

  private final Duration initial;
  private final Duration max;
  private final boolean alignToWindow;

  PodBackoff(Duration initial, Duration max) {
    this(initial, max, false);
  }

  PodBackoff(Duration initial, Duration max, boolean alignToWindow) {
    if (initial.isNegative() || max.isNegative()) {
      throw new IllegalArgumentException("backoff durations must not be negative: initial="
          + initial + ", max=" + max);
    }
    this.initial = initial;
    this.max = max;
    this.alignToWindow = alignToWindow;
  }

  /** Whether expiries are aligned to the ordering window (SchedulerPopFromBackoffQ). */
  boolean alignsToWindow() {
    return alignToWindow;
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

  /** When the pod's backoff ends (window-aligned when enabled); cached on the pod. */
  Instant expiry(QueuedPodInfo pInfo) {
    Instant cached = pInfo.backoffExpiration();
    if (cached != null) {
      return cached;
    }
    Instant expiry = pInfo.timestamp().plus(duration(pInfo.attempts()));
    if (alignToWindow) {
      expiry = window(expiry);
    }
    pInfo.setBackoffExpiration(expiry);
    return expiry;
  }

  /**
   * Whether the pod is still backing off at {@code now}; a gated pod never is. Aligned: a pod
   * never attempted has no backoff, and one whose expiry lies in now's window still backs off.
   */
  boolean isBackingOff(QueuedPodInfo pInfo, Instant now) {
    if (pInfo.isGated()) {
      return false;
    }
    if (!alignToWindow) {
      return expiry(pInfo).isAfter(now);
    }
    return pInfo.attempts() > 0 && !expiry(pInfo).isBefore(window(now));
  }

  /** The start of the ordering window holding {@code t}. */
  static Instant window(Instant t) {
    return Instant.ofEpochSecond(t.getEpochSecond());
  }
}
