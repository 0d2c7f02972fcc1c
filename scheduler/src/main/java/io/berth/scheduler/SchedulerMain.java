package io.berth.scheduler;

import io.berth.component.ClientSettings;
import io.berth.component.ConfigurationException;
import io.berth.component.Daemon;
import io.berth.component.DaemonCommandLine;
import io.berth.component.DaemonOptions;
import io.berth.framework.FeatureGates;
import io.berth.component.DaemonSettings;
import io.berth.component.DaemonWorkload;
import io.berth.component.Exiter;
import io.berth.component.LeaderElectionSettings;
import io.berth.component.Logging;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.config.SchedulerConfigException;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.explain.ExplainStore;
import io.berth.scheduler.record.RecordingWorkload;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar berth-scheduler.jar [--kubeconfig FILE] [--config FILE] [--scheduler-name NAME]
 * [--leader-elect=BOOL] [--port N] [--secure-port N ...] [--record FILE]}: loads the {@code KubeSchedulerConfiguration} (defaults
 * without {@code --config}), checks that every profile builds, and runs the scheduler daemon.
 * Flags given on the command line win over the file's {@code leaderElection} and
 * {@code clientConnection}. Exit statuses: 0 after SIGTERM, 1 on failure or lost leadership, 2 for
 * an unknown flag or an invalid configuration (the message names the field). Confined to the main
 * thread.
 */
@Command(name = "berth-scheduler", sortOptions = true,
    description = "Schedules pods onto nodes, as kube-scheduler does, against a Kubernetes API server.")
public final class SchedulerMain implements Callable<Integer> {
  /** The component name: logs, User-Agent, default Lease name. */
  public static final String NAME = "berth-scheduler";
  /** kube-scheduler's secure port: the default of --secure-port, and of the plain HTTP --port. */
  public static final int DEFAULT_PORT = 10259;

  @Mixin
  private final DaemonOptions daemonOptions = new DaemonOptions(DEFAULT_PORT, NAME);

  @Option(names = "--config", paramLabel = "FILE",
      description = "A kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration file.")
  private Path config;

  @Option(names = "--scheduler-name", paramLabel = "NAME",
      description = "Sets the first profile's schedulerName. Default: default-scheduler.")
  private String schedulerName;

  @Option(names = "--feature-gates", paramLabel = "NAME=BOOL,...",
      description = "Feature gates, as kube-scheduler v1.36's (SchedulerAsyncPreemption,"
          + " SchedulerPopFromBackoffQ, ...=true|false; defaults as v1.36).")
  private String featureGates;

  @Option(names = "--explain-attempts-per-pod", paramLabel = "N",
      description = "Scheduling attempts kept per pod for /debug/explain (a ring; 0 records"
          + " nothing). Default: " + ExplainStore.DEFAULT_ATTEMPTS_PER_POD + ".")
  private int explainAttemptsPerPod = ExplainStore.DEFAULT_ATTEMPTS_PER_POD;

  @Option(names = "--explain-max-entries", paramLabel = "N",
      description = "Bound on everything /debug/explain keeps: an attempt counts 1 plus 1 per node"
          + " it lists; the least recently recorded pods' oldest attempts go first. Default: "
          + ExplainStore.DEFAULT_MAX_ENTRIES + ".")
  private long explainMaxEntries = ExplainStore.DEFAULT_MAX_ENTRIES;

  @Option(names = "--record-results-annotations", negatable = true, arity = "0..1",
      fallbackValue = "true", paramLabel = "BOOL",
      description = "Write kube-scheduler-simulator's result annotations"
          + " (kube-scheduler-simulator.sigs.k8s.io/filter-result, score-result, ...) onto pods."
          + " Default: false.")
  private boolean recordResultsAnnotations;

  @Option(names = "--record", paramLabel = "FILE",
      description = "Appends the objects the scheduler observes (pods, nodes, PVs, PVCs, PodGroups,"
          + " ElasticQuotas) to FILE as timestamped JSON Lines (gzip'd if FILE ends in .gz),"
          + " for berth-replay.")
  private Path record;

  @Option(names = "--debug-advertise-address", paramLabel = "HOST",
      description = "With leader election: the host or IP address the other replicas reach this"
          + " one's /debug at while it leads (published on the Lease, so standbys forward /debug"
          + " to the leader). Default: the POD_IP environment variable, else 127.0.0.1.")
  private String debugAdvertiseAddress;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  private boolean help;

  @Spec
  private CommandSpec spec;

  private final Exiter exiter;
  private final boolean installShutdownHook;
  private volatile Daemon daemon;

  SchedulerMain(Exiter exiter, boolean installShutdownHook) {
    this.exiter = exiter;
    this.installShutdownHook = installShutdownHook;
  }

  public static void main(String[] args) {
    Logging.bridgeJulToSlf4j();
    int status = commandLine(Exiter.SYSTEM, true).execute(args);
    // reached for usage errors and --help; a daemon that ran has already exited through the exiter
    Exiter.SYSTEM.exit(status);
  }

  /** The command line, for tests that run the daemon in-process. */
  static CommandLine commandLine(Exiter exiter, boolean installShutdownHook) {
    return DaemonCommandLine.create(new SchedulerMain(exiter, installShutdownHook));
  }

  /** The registry: in-tree plugins plus out-of-tree ones found with ServiceLoader. */
  static Registry registry() {
    return InTreeRegistry.create().loadOutOfTree(SchedulerMain.class.getClassLoader());
  }

  /** Loads, names and validates the configuration; throws ConfigurationException (exit 2). */
  SchedulerConfiguration configuration(Registry registry) {
    SchedulerConfiguration cfg;
    try {
      cfg = config == null ? SchedulerConfigLoader.defaults(registry)
          : SchedulerConfigLoader.load(config, registry);
      if (schedulerName != null) {
        cfg = cfg.withSchedulerName(schedulerName);
      }
    } catch (SchedulerConfigException e) {
      throw new ConfigurationException("--config", e.getMessage(), e);
    }
    try {
      SchedulerAssembly.validate(cfg, registry);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("--config", (config == null ? "" : config + ": ")
          + e.getMessage(), e);
    }
    return cfg;
  }

  /** The parsed {@code --feature-gates}; throws ConfigurationException (exit 2) naming a bad one. */
  FeatureGates featureGates() {
    try {
      return FeatureGates.parse(featureGates);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("--feature-gates", e.getMessage(), e);
    }
  }

  /** The explain flags, checked; throws ConfigurationException (exit 2) naming a bad one. */
  SchedulerWorkload.ExplainOptions explainOptions() {
    if (explainAttemptsPerPod < 0) {
      throw new ConfigurationException("--explain-attempts-per-pod",
          "must be 0 or more, got " + explainAttemptsPerPod);
    }
    if (explainMaxEntries < 1) {
      throw new ConfigurationException("--explain-max-entries",
          "must be at least 1, got " + explainMaxEntries);
    }
    String advertise = debugAdvertiseAddress;
    if (advertise == null) {
      String podIp = System.getenv("POD_IP");
      advertise = podIp == null || podIp.isBlank() ? "127.0.0.1" : podIp.strip();
    }
    if (advertise.isBlank() || advertise.contains("/") || advertise.contains(" ")) {
      throw new ConfigurationException("--debug-advertise-address",
          "must be a host name or IP address, got \"" + advertise + "\"");
    }
    return new SchedulerWorkload.ExplainOptions(explainAttemptsPerPod, explainMaxEntries,
        recordResultsAnnotations, advertise);
  }

  /** The daemon settings: flags given explicitly win over the configuration file. */
  DaemonSettings settings(SchedulerConfiguration cfg) {
    DaemonSettings flags = daemonOptions.settings(NAME);
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    SchedulerConfiguration.LeaderElection le = cfg.leaderElection();
    LeaderElectionSettings fromFlags = flags.leaderElection();
    LeaderElectionSettings election = new LeaderElectionSettings(
        pick(parsed, DaemonOptions.LEADER_ELECT, fromFlags.enabled(), le.leaderElect()),
        pick(parsed, DaemonOptions.LEASE_DURATION, fromFlags.leaseDuration(), le.leaseDuration()),
        pick(parsed, DaemonOptions.RENEW_DEADLINE, fromFlags.renewDeadline(), le.renewDeadline()),
        pick(parsed, DaemonOptions.RETRY_PERIOD, fromFlags.retryPeriod(), le.retryPeriod()),
        pick(parsed, DaemonOptions.RESOURCE_NAMESPACE, fromFlags.resourceNamespace(),
            le.resourceNamespace()),
        pick(parsed, DaemonOptions.RESOURCE_NAME, fromFlags.resourceName(), le.resourceName()));
    SchedulerConfiguration.ClientConnection cc = cfg.clientConnection();
    Optional<Path> kubeconfig = flags.client().kubeconfig().isPresent() ? flags.client().kubeconfig()
        : cc.kubeconfig().filter(s -> !s.isEmpty()).map(Path::of);
    ClientSettings client = new ClientSettings(kubeconfig,
        pick(parsed, DaemonOptions.KUBE_API_QPS, flags.client().qps(), cc.qps()),
        pick(parsed, DaemonOptions.KUBE_API_BURST, flags.client().burst(), cc.burst()), NAME);
    return flags.with(client, election).validate();
  }

  private static <T> T pick(CommandLine.ParseResult parsed, String flag, T fromFlag, T fromFile) {
    return parsed != null && parsed.hasMatchedOption(flag) ? fromFlag : fromFile;
  }

  @Override
  public Integer call() throws InterruptedException {
    Registry registry = registry();
    SchedulerConfiguration cfg = configuration(registry);
    FeatureGates gates = featureGates();
    DaemonSettings settings = settings(cfg);
    SchedulerWorkload.ExplainOptions explain = explainOptions();
    DaemonWorkload workload = new SchedulerWorkload(cfg, registry, gates, explain);
    if (record != null) {
      workload = recording(workload, record);
    }
    daemon = Daemon.builder(settings, workload).exiter(exiter)
        .installShutdownHook(installShutdownHook).build();
    return daemon.run();
  }

  /** {@code --record}: the workload recording its informer stream; exit 2 when FILE cannot be opened. */
  private static DaemonWorkload recording(DaemonWorkload workload, Path file) {
    try {
      return new RecordingWorkload(workload, file);
    } catch (java.io.IOException e) {
      throw new ConfigurationException("--record", "cannot append to " + file + ": " + e, e);
    }
  }

  /** The running daemon, for in-process tests. */
  Optional<Daemon> daemon() {
    return Optional.ofNullable(daemon);
  }
}
