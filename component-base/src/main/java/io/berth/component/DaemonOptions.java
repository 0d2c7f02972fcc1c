package io.berth.component;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * The flags every Berth daemon shares, as a picocli mixin: {@code --kubeconfig}, {@code --port}, the client-side
 * rate limit {@code --kube-api-qps}/{@code --kube-api-burst}, the {@code --leader-elect*} family and the secure
 * serving flags of {@link SecureServingOptions} ({@code --secure-port}, {@code --tls-cert-file}, ...), with
 * kube-controller-manager's names and defaults. Durations take Go syntax ({@code 15s}, {@code 1m30s}); a value
 * picocli cannot convert is a usage error naming the flag (exit status 2).
 *
 * <p>A daemon declares it as {@code @Mixin DaemonOptions daemon = new DaemonOptions(10257,
 * "berth-controller-manager")}: the constructor sets the defaults that differ per daemon (port, secure port and
 * Lease name), and picocli shows them in the help. Which endpoints serve follows the compatibility rule of
 * {@link SecureServingOptions}: plain HTTP on {@code --port} as before unless {@code --secure-port} is given; with
 * {@code --secure-port}, HTTPS on it, and plain HTTP only if {@code --port} is given too. Mutable while picocli
 * parses, then read once through {@link #settings(String)}; confined to the thread that parses.
 */
public final class DaemonOptions {

  public static final String KUBECONFIG = "--kubeconfig";
  public static final String PORT = "--port";
  public static final String KUBE_API_QPS = "--kube-api-qps";
  public static final String KUBE_API_BURST = "--kube-api-burst";
  public static final String LEADER_ELECT = "--leader-elect";
  public static final String LEASE_DURATION = "--leader-elect-lease-duration";
  public static final String RENEW_DEADLINE = "--leader-elect-renew-deadline";
  public static final String RETRY_PERIOD = "--leader-elect-retry-period";
  public static final String RESOURCE_NAMESPACE = "--leader-elect-resource-namespace";
  public static final String RESOURCE_NAME = "--leader-elect-resource-name";

  private static final Logger log = LoggerFactory.getLogger(DaemonOptions.class);

  // the command using this mixin, injected by picocli: tells which flags were given explicitly
  @Spec(Spec.Target.MIXEE)
  private CommandSpec mixee;

  @Mixin
  private final SecureServingOptions secureServing;

  @Option(names = KUBECONFIG, paramLabel = "FILE",
      description = "Path to a kubeconfig file. Without it, KUBECONFIG is used, then the in-cluster service account.")
  private Path kubeconfig;

  @Option(names = PORT, paramLabel = "N",
      description = "Port of the plain HTTP /healthz, /livez, /readyz and /metrics endpoint; 0 picks a free port"
          + " and logs it. Not served when --secure-port is given without --port. Default: ${DEFAULT-VALUE}.")
  private int port;

  @Option(names = KUBE_API_QPS, paramLabel = "QPS",
      description = "Sustained requests per second to the API server (client-side token bucket); 0 means 5, a"
          + " negative value disables the limit. Default: ${DEFAULT-VALUE}.")
  private double kubeApiQps = ClientSettings.DEFAULT_QPS;

  @Option(names = KUBE_API_BURST, paramLabel = "N",
      description = "Requests allowed at once above --kube-api-qps; 0 means 10. Default: ${DEFAULT-VALUE}.")
  private int kubeApiBurst = ClientSettings.DEFAULT_BURST;

  @Option(names = LEADER_ELECT, negatable = true, arity = "0..1", fallbackValue = "true", paramLabel = "BOOL",
      description = "Elect a leader through a Lease before doing any work, so that replicas never act at once."
          + " Default: ${DEFAULT-VALUE}.")
  private boolean leaderElect = true;

  @Option(names = LEASE_DURATION, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "How long non-leaders wait after the leader's last renewal before taking over. Default: 15s.")
  private Duration leaseDuration = LeaderElectionSettings.DEFAULT_LEASE_DURATION;

  @Option(names = RENEW_DEADLINE, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "How long the leader retries renewing before it stops leading (and exits). Default: 10s.")
  private Duration renewDeadline = LeaderElectionSettings.DEFAULT_RENEW_DEADLINE;

  @Option(names = RETRY_PERIOD, paramLabel = "DURATION", converter = GoDurationConverter.class,
      description = "Interval between attempts to acquire or renew the Lease. Default: 2s.")
  private Duration retryPeriod = LeaderElectionSettings.DEFAULT_RETRY_PERIOD;

  @Option(names = RESOURCE_NAMESPACE, paramLabel = "NAMESPACE",
      description = "Namespace of the leader election Lease. Default: ${DEFAULT-VALUE}.")
  private String resourceNamespace = LeaderElectionSettings.DEFAULT_RESOURCE_NAMESPACE;

  @Option(names = RESOURCE_NAME, paramLabel = "NAME",
      description = "Name of the leader election Lease. Default: ${DEFAULT-VALUE}.")
  private String resourceName;

  /**
   * Options with a daemon's own defaults for {@code --port} and {@code --leader-elect-resource-name}; the default
   * {@code --secure-port} is the same as {@code --port} (10259 for the scheduler, 10257 for the controller manager,
   * upstream's secure ports).
   */
  public DaemonOptions(int defaultPort, String defaultLeaseName) {
    this(defaultPort, defaultPort, defaultLeaseName);
  }

  /** Options with a daemon's own defaults for {@code --port}, {@code --secure-port} and the Lease name. */
  public DaemonOptions(int defaultPort, int defaultSecurePort, String defaultLeaseName) {
    this.port = defaultPort;
    this.secureServing = new SecureServingOptions(defaultSecurePort);
    this.resourceName = Objects.requireNonNull(defaultLeaseName, "defaultLeaseName");
  }

  /** The value of {@code --kubeconfig}, if given. */
  public Optional<Path> kubeconfig() {
    return Optional.ofNullable(kubeconfig);
  }

  /**
   * The parsed flags as validated settings.
   *
   * @param component the daemon's name, used in logs and as the User-Agent
   * @throws ConfigurationException naming the first flag whose value cannot be used
   */
  public DaemonSettings settings(String component) {
    ClientSettings client = new ClientSettings(kubeconfig(), kubeApiQps, kubeApiBurst, component);
    LeaderElectionSettings election = new LeaderElectionSettings(leaderElect, leaseDuration, renewDeadline,
        retryPeriod, resourceNamespace, resourceName);
    boolean secure = given(SecureServingOptions.SECURE_PORT);
    // Checked even when unused, so that a bad --tls-cert-file is a usage error whatever else is given.
    SecureServingSettings secureSettings = secureServing.settings();
    if (!secure && SecureServingOptions.FLAGS.stream().anyMatch(this::given)) {
      log.warn("secure serving flags are ignored without {}", SecureServingOptions.SECURE_PORT);
    }
    return new DaemonSettings(component, port, client, election, !secure || given(PORT),
        secure ? Optional.of(secureSettings) : Optional.empty()).validate();
  }

  /** Whether {@code flag} was given on the command line (false when not parsed by picocli). */
  private boolean given(String flag) {
    ParseResult parsed = mixee == null || mixee.commandLine() == null ? null
        : mixee.commandLine().getParseResult();
    return parsed != null && parsed.hasMatchedOption(flag);
  }
}
