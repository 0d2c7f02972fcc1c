package io.berth.component;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How a daemon reaches the API server: the {@code --kubeconfig} file, if given (otherwise {@code KUBECONFIG}, then
 * the in-cluster service account), and the client-side rate limit {@code --kube-api-qps}/{@code --kube-api-burst}
 * as client-go's {@code rest.Config} applies it: a token bucket of {@code burst} tokens refilled at {@code qps} per
 * second; a qps of 0 means client-go's defaults (5 per second, burst 10), a burst of 0 means burst 10, and a
 * negative qps turns the limit off. Immutable.
 *
 * @param kubeconfig the file named by {@code --kubeconfig}
 * @param qps sustained requests per second
 * @param burst requests allowed at once above the sustained rate
 * @param userAgent the User-Agent header of every request (the daemon's name)
 */
public record ClientSettings(Optional<Path> kubeconfig, double qps, int burst, String userAgent) {

  public static final double DEFAULT_QPS = 20;
  public static final int DEFAULT_BURST = 30;

  public ClientSettings {
    Objects.requireNonNull(kubeconfig, "kubeconfig");
    Objects.requireNonNull(userAgent, "userAgent");
  }

  /** client-go's {@code DefaultQPS}, used when qps is 0. */
  public static final double CLIENT_GO_DEFAULT_QPS = 5;
  /** client-go's {@code DefaultBurst}, used when burst is 0. */
  public static final int CLIENT_GO_DEFAULT_BURST = 10;

  /** Whether requests go through a client-side rate limiter. */
  public boolean rateLimited() {
    return qps >= 0;
  }

  /** The refill rate in effect: qps, or client-go's default for 0. */
  public double effectiveQps() {
    return qps == 0 ? CLIENT_GO_DEFAULT_QPS : qps;
  }

  /** The bucket size in effect: burst, or client-go's default for 0. */
  public int effectiveBurst() {
    return burst == 0 ? CLIENT_GO_DEFAULT_BURST : burst;
  }

  /**
   * Checks the rate-limit flags: qps is a finite number, burst is not negative.
   *
   * @return this
   * @throws ConfigurationException naming the flag at fault
   */
  public ClientSettings validate() {
    if (Double.isNaN(qps) || Double.isInfinite(qps)) {
      throw new ConfigurationException(DaemonOptions.KUBE_API_QPS, "must be a finite number, got " + qps);
    }
    if (burst < 0) {
      throw new ConfigurationException(DaemonOptions.KUBE_API_BURST,
          DaemonOptions.KUBE_API_BURST + " must not be negative, got " + burst);
    }
    return this;
  }
}
