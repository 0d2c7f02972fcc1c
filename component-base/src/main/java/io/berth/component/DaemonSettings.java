package io.berth.component;

import java.util.Objects;

/**
 * Everything the shared daemon machinery needs, as parsed from {@link DaemonOptions}. Immutable.
 *
 * @param component the daemon's name ({@code berth-controller-manager}), used in logs and as the User-Agent
 * @param port the port of {@code /healthz}, {@code /readyz} and {@code /metrics}; 0 picks a free one
 * @param client how to reach the API server
 * @param leaderElection whether and how to elect a leader
 */
public record DaemonSettings(String component, int port, ClientSettings client,
    LeaderElectionSettings leaderElection) {

  public DaemonSettings {
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(leaderElection, "leaderElection");
  }

  /**
   * Checks every part, naming the flag at fault.
   *
   * @return this
   * @throws ConfigurationException if a value cannot be used
   */
  public DaemonSettings validate() {
    if (port < 0 || port > 65_535) {
      throw new ConfigurationException(DaemonOptions.PORT, DaemonOptions.PORT
          + " must be between 0 and 65535, got " + port);
    }
    client.validate();
    leaderElection.validate();
    return this;
  }
}
