package io.berth.component;

import java.util.Objects;
import java.util.Optional;

/**
 * Everything the shared daemon machinery needs, as parsed from {@link DaemonOptions}. Immutable.
 *
 * @param component the daemon's name ({@code berth-controller-manager}), used in logs and as the User-Agent
 * @param port the port of plain HTTP {@code /healthz}, {@code /livez}, {@code /readyz} and {@code /metrics}; 0 picks
 *     a free one
 * @param client how to reach the API server
 * @param leaderElection whether and how to elect a leader
 * @param plainServing whether {@code port} is served (false when {@code --secure-port} is given without
 *     {@code --port})
 * @param secureServing the secure endpoint, if {@code --secure-port} was given
 */
public record DaemonSettings(String component, int port, ClientSettings client,
    LeaderElectionSettings leaderElection, boolean plainServing, Optional<SecureServingSettings> secureServing) {

  public DaemonSettings {
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(leaderElection, "leaderElection");
    Objects.requireNonNull(secureServing, "secureServing");
  }

  /** Settings serving plain HTTP on {@code port} only, as before secure serving existed. */
  public DaemonSettings(String component, int port, ClientSettings client, LeaderElectionSettings leaderElection) {
    this(component, port, client, leaderElection, true, Optional.empty());
  }

  /** These settings with another client and leader election (the scheduler's configuration file may set both). */
  public DaemonSettings with(ClientSettings newClient, LeaderElectionSettings newLeaderElection) {
    return new DaemonSettings(component, port, newClient, newLeaderElection, plainServing, secureServing);
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
    if (!plainServing && secureServing.isEmpty()) {
      throw new ConfigurationException(DaemonOptions.PORT, "nothing to serve: neither " + DaemonOptions.PORT
          + " nor " + SecureServingOptions.SECURE_PORT);
    }
    secureServing.ifPresent(SecureServingSettings::validate);
    client.validate();
    leaderElection.validate();
    return this;
  }
}
