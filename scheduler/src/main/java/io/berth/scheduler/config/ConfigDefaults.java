package io.berth.scheduler.config;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.plugins.DefaultProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * kube-scheduler v1.32's defaulting ({@code SetDefaults_KubeSchedulerConfiguration} in
 * pkg/scheduler/apis/config/v1/defaults.go and component-base's recommended leader election
 * defaults), applied to a {@link DecodedConfig}. As upstream, a zero duration, QPS or burst counts
 * as unset; with no profiles there is one; a lone profile without a name is "default-scheduler";
 * every profile's plugins are merged with the default multiPoint set ({@link PluginMerge}).
 * Plugin args are not defaulted here: each plugin's factory defaults its own. Stateless.
 */
final class ConfigDefaults {
  static final int PARALLELISM = 16;
  static final long POD_INITIAL_BACKOFF_SECONDS = 1;
  static final long POD_MAX_BACKOFF_SECONDS = 10;
  static final Duration LEASE_DURATION = Duration.ofSeconds(15);
  static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
  static final Duration RETRY_PERIOD = Duration.ofSeconds(2);
  static final String RESOURCE_LOCK = "leases";
  /** Ours, where kube-scheduler uses "kube-scheduler", so both can run in one cluster. */
  static final String RESOURCE_NAME = "berth-scheduler";
  static final String RESOURCE_NAMESPACE = "kube-system";
  static final double QPS = 50;
  static final int BURST = 100;

  private ConfigDefaults() {}

  static SchedulerConfiguration apply(DecodedConfig decoded, PluginSet defaultMultiPoint) {
    List<DecodedConfig.Profile> profiles = decoded.profiles().isEmpty()
        ? List.of(new DecodedConfig.Profile(Optional.empty(), OptionalInt.empty(),
            PluginSet.EMPTY, Map.of(), List.of()))
        : decoded.profiles();
    List<ProfileConfig> defaulted = new ArrayList<>();
    for (DecodedConfig.Profile profile : profiles) {
      // Only a lone profile gets the default name; validation requires one everywhere else.
      String fallbackName = profiles.size() == 1 ? DefaultProfile.DEFAULT_SCHEDULER_NAME : "";
      defaulted.add(profile(profile, profile.schedulerName().orElse(fallbackName),
          defaultMultiPoint, decoded.percentageOfNodesToScore()));
    }
    return new SchedulerConfiguration(
        decoded.parallelism().orElse(PARALLELISM),
        decoded.percentageOfNodesToScore(),
        decoded.podInitialBackoffSeconds().orElse(POD_INITIAL_BACKOFF_SECONDS),
        decoded.podMaxBackoffSeconds().orElse(POD_MAX_BACKOFF_SECONDS),
        leaderElection(decoded.leaderElection()),
        clientConnection(decoded.clientConnection()),
        decoded.delayCacheUntilActive(),
        defaulted);
  }

  private static ProfileConfig profile(DecodedConfig.Profile profile, String schedulerName,
      PluginSet defaultMultiPoint, OptionalInt globalPercentage) {
    // Upstream's defaults sit under multiPoint only, so each point merges with an empty default.
    Map<ExtensionPoint, PluginSet> plugins = new EnumMap<>(ExtensionPoint.class);
    for (ExtensionPoint point : ExtensionPoint.values()) {
      PluginSet merged = PluginMerge.merge(PluginSet.EMPTY, profile.pluginSet(point));
      if (!merged.enabled().isEmpty() || !merged.disabled().isEmpty()) {
        plugins.put(point, merged);
      }
    }
    // Duplicate names are a validation error; until then the first entry wins.
    Map<String, Map<String, Object>> pluginConfig = new LinkedHashMap<>();
    for (DecodedConfig.PluginConfig config : profile.pluginConfig()) {
      pluginConfig.putIfAbsent(config.name(), config.args());
    }
    OptionalInt percentage = profile.percentageOfNodesToScore().isPresent()
        ? profile.percentageOfNodesToScore()
        : globalPercentage;
    return new ProfileConfig(schedulerName, plugins,
        PluginMerge.merge(defaultMultiPoint, profile.multiPoint()), pluginConfig, percentage);
  }

  private static SchedulerConfiguration.LeaderElection leaderElection(
      DecodedConfig.LeaderElection le) {
    return new SchedulerConfiguration.LeaderElection(
        le.leaderElect().orElse(true),
        nonZero(le.leaseDuration(), LEASE_DURATION),
        nonZero(le.renewDeadline(), RENEW_DEADLINE),
        nonZero(le.retryPeriod(), RETRY_PERIOD),
        le.resourceLock().isEmpty() ? RESOURCE_LOCK : le.resourceLock(),
        le.resourceName().isEmpty() ? RESOURCE_NAME : le.resourceName(),
        le.resourceNamespace().isEmpty() ? RESOURCE_NAMESPACE : le.resourceNamespace());
  }

  private static SchedulerConfiguration.ClientConnection clientConnection(
      DecodedConfig.ClientConnection cc) {
    double qps = cc.qps().orElse(0);
    int burst = cc.burst().orElse(0);
    return new SchedulerConfiguration.ClientConnection(
        cc.kubeconfig().isEmpty() ? Optional.empty() : Optional.of(cc.kubeconfig()),
        qps == 0 ? QPS : qps,
        burst == 0 ? BURST : burst);
  }

  private static Duration nonZero(Optional<Duration> value, Duration fallback) {
    return value.filter(d -> !d.isZero()).orElse(fallback);
  }
}
