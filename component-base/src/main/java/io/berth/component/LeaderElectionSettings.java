package io.berth.component;

import java.time.Duration;
import java.util.Objects;

/**
 * How a daemon takes part in leader election (kube-controller-manager's {@code --leader-elect*} flags): a
 * {@code coordination.k8s.io/v1} Lease named {@code resourceName} in {@code resourceNamespace}, held for
 * {@code leaseDuration} since its last renewal, renewed every {@code retryPeriod} while leading, given up if not
 * renewed within {@code renewDeadline}. Immutable.
 *
 * @param enabled whether to elect at all; when false the daemon works at once and alone
 * @param leaseDuration how long non-leaders wait after the last renewal before taking over
 * @param renewDeadline how long the leader keeps retrying a failed renewal before it gives up
 * @param retryPeriod the interval between acquire and renew attempts
 * @param resourceNamespace the Lease's namespace
 * @param resourceName the Lease's name
 */
public record LeaderElectionSettings(boolean enabled, Duration leaseDuration, Duration renewDeadline,
    Duration retryPeriod, String resourceNamespace, String resourceName) {

  /** client-go's {@code JitterFactor}: non-leaders retry after {@code retryPeriod * (1 + random * 1.2)}. */
  public static final double JITTER_FACTOR = 1.2;

  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  public static final Duration DEFAULT_RENEW_DEADLINE = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_PERIOD = Duration.ofSeconds(2);
  public static final String DEFAULT_RESOURCE_NAMESPACE = "kube-system";

  public LeaderElectionSettings {
    Objects.requireNonNull(leaseDuration, "leaseDuration");
    Objects.requireNonNull(renewDeadline, "renewDeadline");
    Objects.requireNonNull(retryPeriod, "retryPeriod");
    Objects.requireNonNull(resourceNamespace, "resourceNamespace");
    Objects.requireNonNull(resourceName, "resourceName");
  }

  /**
   * Checks what client-go's {@code NewLeaderElector} checks, naming the flags: every duration positive, the lease
   * longer than the renew deadline, the renew deadline longer than {@code JITTER_FACTOR * retryPeriod}; and a
   * non-empty Lease namespace and name. Nothing is checked when election is off (the values are unused then).
   *
   * @return this
   * @throws ConfigurationException naming the first flag at fault
   */
  public LeaderElectionSettings validate() {
    if (!enabled) {
      return this;
    }
    positive(leaseDuration, DaemonOptions.LEASE_DURATION);
    positive(renewDeadline, DaemonOptions.RENEW_DEADLINE);
    positive(retryPeriod, DaemonOptions.RETRY_PERIOD);
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      throw new ConfigurationException(DaemonOptions.LEASE_DURATION, DaemonOptions.LEASE_DURATION + " ("
          + GoDurations.format(leaseDuration) + ") must be greater than " + DaemonOptions.RENEW_DEADLINE + " ("
          + GoDurations.format(renewDeadline) + ")");
    }
    double jitteredRetryNanos = retryPeriod.toNanos() * JITTER_FACTOR;
    if (renewDeadline.toNanos() <= jitteredRetryNanos) {
      throw new ConfigurationException(DaemonOptions.RENEW_DEADLINE, DaemonOptions.RENEW_DEADLINE + " ("
          + GoDurations.format(renewDeadline) + ") must be greater than " + JITTER_FACTOR + " x "
          + DaemonOptions.RETRY_PERIOD + " (" + GoDurations.format(retryPeriod) + ")");
    }
    if (resourceNamespace.isBlank()) {
      throw new ConfigurationException(DaemonOptions.RESOURCE_NAMESPACE, "must not be empty");
    }
    if (resourceName.isBlank()) {
      throw new ConfigurationException(DaemonOptions.RESOURCE_NAME, "must not be empty");
    }
    return this;
  }

  private static void positive(Duration d, String flag) {
    if (d.isNegative() || d.isZero()) {
      throw new ConfigurationException(flag, flag + " must be greater than zero, got " + GoDurations.format(d));
    }
  }
}
