package io.berth.scheduler.config;

import io.berth.framework.runtime.ProfileConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The scheduler daemon's configuration after kube-scheduler v1.32's defaulting and validation, as
 * {@link SchedulerConfigLoader} produces it from a {@code KubeSchedulerConfiguration} (or from
 * nothing). Each profile's {@link ProfileConfig#percentageOfNodesToScore()} is already the
 * effective value (the profile's own, else the global one); empty or 0 means adaptive, as upstream.
 * {@code delayCacheUntilActive} is accepted and carried but Berth does not act on it. Immutable;
 * safe to share between threads. Values built by hand are not validated.
 *
 * @param parallelism workers for Filter/Score and preemption (default 16)
 * @param percentageOfNodesToScore the global percentage as written; empty means adaptive
 * @param podInitialBackoffSeconds first backoff of an unschedulable pod (default 1)
 * @param podMaxBackoffSeconds backoff cap (default 10)
 * @param leaderElection leader election settings
 * @param clientConnection API client settings
 * @param delayCacheUntilActive accepted for compatibility, not acted upon
 * @param profiles the profiles, at least one, scheduler names unique
 */
public record SchedulerConfiguration(
    int parallelism,
    OptionalInt percentageOfNodesToScore,
    long podInitialBackoffSeconds,
    long podMaxBackoffSeconds,
    LeaderElection leaderElection,
    ClientConnection clientConnection,
    boolean delayCacheUntilActive,
    List<ProfileConfig> profiles) {

  public SchedulerConfiguration {
    Objects.requireNonNull(percentageOfNodesToScore, "percentageOfNodesToScore");
    Objects.requireNonNull(leaderElection, "leaderElection");
    Objects.requireNonNull(clientConnection, "clientConnection");
    profiles = List.copyOf(profiles);
  }

  /**
   * {@code leaderElection}, defaulted as upstream (leaderElect true, 15s/10s/2s, lock "leases"
   * in "kube-system"), except that the lease is named "berth-scheduler".
   */
  public record LeaderElection(
      boolean leaderElect,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod,
      String resourceLock,
      String resourceName,
      String resourceNamespace) {
    public LeaderElection {
      Objects.requireNonNull(leaseDuration, "leaseDuration");
      Objects.requireNonNull(renewDeadline, "renewDeadline");
      Objects.requireNonNull(retryPeriod, "retryPeriod");
      Objects.requireNonNull(resourceLock, "resourceLock");
      Objects.requireNonNull(resourceName, "resourceName");
      Objects.requireNonNull(resourceNamespace, "resourceNamespace");
    }
  }

  /**
   * {@code clientConnection}: the kubeconfig file (empty: the daemon's flag, then
   * {@code KUBECONFIG}, then in-cluster) and client-side rate limits (defaults 50 QPS, burst
   * 100). {@code contentType} and {@code acceptContentTypes} are accepted and ignored.
   */
  public record ClientConnection(Optional<String> kubeconfig, double qps, int burst) {
    public ClientConnection {
      Objects.requireNonNull(kubeconfig, "kubeconfig");
    }
  }

  /** The profile whose scheduler name is {@code schedulerName}. */
  public Optional<ProfileConfig> profile(String schedulerName) {
    return profiles.stream().filter(p -> p.schedulerName().equals(schedulerName)).findFirst();
  }

  /**
   * A copy whose first profile is named {@code schedulerName} (the daemon's
   * {@code --scheduler-name}). Throws {@link SchedulerConfigException} when the name is empty or
   * another profile already has it.
   */
  public SchedulerConfiguration withSchedulerName(String schedulerName) {
    String flag = "--scheduler-name " + FieldError.render(schedulerName);
    if (schedulerName.isEmpty()) {
      throw SchedulerConfigException.fromFlag(flag,
          List.of(FieldError.required("profiles[0].schedulerName", "")));
    }
    for (int i = 1; i < profiles.size(); i++) {
      if (profiles.get(i).schedulerName().equals(schedulerName)) {
        throw SchedulerConfigException.fromFlag(flag,
            List.of(FieldError.duplicate("profiles[" + i + "].schedulerName", schedulerName)));
      }
    }
    ProfileConfig first = profiles.get(0);
    List<ProfileConfig> renamed = new ArrayList<>(profiles);
    renamed.set(0, new ProfileConfig(schedulerName, first.plugins(), first.multiPoint(),
        first.pluginConfig(), first.percentageOfNodesToScore()));
    return new SchedulerConfiguration(parallelism, percentageOfNodesToScore,
        podInitialBackoffSeconds, podMaxBackoffSeconds, leaderElection, clientConnection,
        delayCacheUntilActive, renamed);
  }
}
