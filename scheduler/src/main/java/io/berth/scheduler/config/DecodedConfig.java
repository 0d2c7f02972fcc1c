package io.berth.scheduler.config;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A {@code KubeSchedulerConfiguration} exactly as the file wrote it, before defaulting: every
 * optional field is empty when the file left it out (or wrote {@code null}), which is what the
 * upstream v1 type's pointer fields express. Plugin sets and indices are the user's, so validation
 * can name {@code profiles[0].plugins.filter.enabled[1].name}. Immutable.
 */
record DecodedConfig(
    OptionalInt parallelism,
    OptionalInt percentageOfNodesToScore,
    OptionalLong podInitialBackoffSeconds,
    OptionalLong podMaxBackoffSeconds,
    LeaderElection leaderElection,
    ClientConnection clientConnection,
    boolean delayCacheUntilActive,
    List<Profile> profiles) {

  DecodedConfig {
    profiles = List.copyOf(profiles);
  }

  /** An empty document (only apiVersion and kind): what running without a file means. */
  static DecodedConfig empty() {
    return new DecodedConfig(OptionalInt.empty(), OptionalInt.empty(), OptionalLong.empty(),
        OptionalLong.empty(), LeaderElection.EMPTY, ClientConnection.EMPTY, false, List.of());
  }

  /** {@code leaderElection}; strings are empty when unset (Go's zero value). */
  record LeaderElection(
      Optional<Boolean> leaderElect,
      Optional<Duration> leaseDuration,
      Optional<Duration> renewDeadline,
      Optional<Duration> retryPeriod,
      String resourceLock,
      String resourceName,
      String resourceNamespace) {
    static final LeaderElection EMPTY = new LeaderElection(Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), "", "", "");
  }

  /** {@code clientConnection}; kubeconfig is empty when unset. */
  record ClientConnection(String kubeconfig, OptionalDouble qps, OptionalInt burst) {
    static final ClientConnection EMPTY =
        new ClientConnection("", OptionalDouble.empty(), OptionalInt.empty());
  }

  /** One entry of {@code profiles}; {@code plugins} holds only the extension points written. */
  record Profile(
      Optional<String> schedulerName,
      OptionalInt percentageOfNodesToScore,
      PluginSet multiPoint,
      Map<ExtensionPoint, PluginSet> plugins,
      List<PluginConfig> pluginConfig) {
    Profile {
      plugins = Map.copyOf(plugins);
      pluginConfig = List.copyOf(pluginConfig);
    }

    PluginSet pluginSet(ExtensionPoint point) {
      return plugins.getOrDefault(point, PluginSet.EMPTY);
    }
  }

  /** One entry of {@code pluginConfig}, its args without {@code apiVersion}/{@code kind}. */
  record PluginConfig(String name, Map<String, Object> args) {}
}
