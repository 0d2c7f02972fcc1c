package io.berth.component;

import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle both Berth daemons share. {@link #start()}: resolve the client configuration (a bad one is a
 * {@link ConfigurationException}, exit status 2, thrown before anything starts, and so is an unusable serving
 * certificate), serve {@code /healthz} {@code /livez} {@code /readyz} {@code /metrics} (plain HTTP on
 * {@link #port()}, and HTTPS with delegated authentication and authorization on {@link #securePort()} when
 * {@code --secure-port} is given; see {@link SecureServingOptions} for which of the two serve), build the client
 * and the {@link DaemonWorkload} (which registers its informers), then on a startup thread start the informers,
 * wait for their caches, and either run leader election or start working at once. {@code /readyz} is 200 when every
 * informer has synced, this instance leads (or election is off), and the daemon is not shutting down. The informers
 * hold their objects without {@code metadata.managedFields} ({@link SharedInformerFactory#droppingManagedFields}), as
 * kube-controller-manager's informer transform and kube-scheduler's pod informer transform drop them.
 *
 * <p>Termination, whatever its cause, runs once and in this order: stop the work (queues drain for up to the drain
 * timeout), stop the informers, stop leader election (releasing the Lease if held), stop the endpoints (plain, then
 * secure with its delegation clients), close the clients; then the {@link Exiter} is called exactly once with the
 * status:
 * <ul>
 *   <li>0 after {@link #shutdown()} or SIGTERM (the JVM shutdown hook), within 30 s (a watchdog exits anyway at
 *   {@link #SHUTDOWN_DEADLINE});</li>
 *   <li>1 when leadership is lost: the work is stopped without waiting for syncs in flight and the process exits,
 *   as kube-controller-manager does ("leaderelection lost"), so that two instances never act at once;</li>
 *   <li>1 when startup fails (the port cannot be bound, the workload cannot be built, ...).</li>
 * </ul>
 *
 * <p>Thread-safe. The lifecycle fields are guarded by {@code lock}; the components are written before the startup
 * thread starts (happens-before through {@link Thread#start()}) and read by the terminating thread under
 * {@code lock}.
 */
public final class Daemon {

  /** How long queues may drain on SIGTERM before the daemon stops waiting for them. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(15);
  /** When a termination still running is cut short by exiting anyway. */
  public static final Duration SHUTDOWN_DEADLINE = Duration.ofSeconds(28);

  private static final Logger log = LoggerFactory.getLogger(Daemon.class);
  private static final Duration SYNC_POLL = Duration.ofSeconds(1);
  private static final long SYNC_LOG_EVERY_POLLS = 10;

  private final DaemonSettings settings;
  private final DaemonWorkload workload;
  private final Exiter exiter;
  private final boolean installShutdownHook;
  private final Duration drainTimeout;
  private final ClientConfigResolver resolver;
  private final String identity;
  private final DaemonReadiness readiness;
  private final LeaseAnnotations leaseAnnotations = new LeaseAnnotations();
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final AtomicBoolean exited = new AtomicBoolean();

  private final Object lock = new Object();
  // guarded by lock
  private boolean started;
  // guarded by lock
  private boolean terminating;
  // guarded by lock
  private boolean workStarted;
  // guarded by lock
  private DaemonMetrics metrics;
  // guarded by lock; the paths both endpoints serve
  private EndpointRoutes routes;
  // guarded by lock; null when plain HTTP is not served
  private DaemonEndpoint endpoint;
  // guarded by lock; null without --secure-port
  private SecureServing secureServing;
  // guarded by lock
  private KubernetesClient client;
  // guarded by lock
  private KubernetesClient electionClient;
  // guarded by lock; the events' own client (and token bucket), as kube-scheduler's eventClient
  private KubernetesClient eventsClient;
  // guarded by lock
  private SharedInformerFactory informers;
  // guarded by lock
  private LeaderElection election;
  // guarded by lock
  private Thread shutdownHook;
  // written once by the terminating thread before terminated is counted down
  private volatile int exitCode;

  private Daemon(Builder b) {
    this.settings = b.settings;
    this.workload = b.workload;
    this.exiter = b.exiter;
    this.installShutdownHook = b.installShutdownHook;
    this.drainTimeout = b.drainTimeout;
    this.resolver = b.resolver;
    this.identity = LeaderElection.newIdentity();
    this.readiness = new DaemonReadiness(settings.leaderElection().enabled(), this::leaderDescription);
  }

  /** A daemon running {@code workload} with {@code settings} (already validated). */
  public static Builder builder(DaemonSettings settings, DaemonWorkload workload) {
    return new Builder(settings, workload);
  }

  /** {@link #start()} then {@link #awaitTermination()}; the daemons' {@code main} path. */
  public int run() throws InterruptedException {
    start();
    return awaitTermination();
  }

  /**
   * Starts the daemon and returns once the endpoint serves and the workload is built; the rest of startup continues
   * on its own thread. A startup failure after the configuration was accepted terminates the daemon with status 1
   * (see {@link #awaitTermination()}) instead of throwing.
   *
   * @throws ConfigurationException if the client configuration cannot be used; nothing was started then, the
   *     exiter is not called (the caller reports the usage error) and {@link #awaitTermination()} returns 2
   * @throws IllegalStateException if called twice
   */
  public void start() {
    synchronized (lock) {
      if (started) {
        throw new IllegalStateException("a daemon is started once");
      }
      started = true;
    }
    Config config;
    Config electionConfig;
    Config eventsConfig;
    Optional<SecureServing> secure;
    try {
      config = resolver.resolve(settings.client().kubeconfig());
      // Events get a client of their own, hence a token bucket of their own, as kube-scheduler's and
      // kube-controller-manager's event broadcasters do: a burst of events never delays a binding or a sync.
      eventsConfig = resolver.resolve(settings.client().kubeconfig());
      // A second Config object: the leader-election client gets its own User-Agent, and requests that end within
      // the renew deadline without retries (client-go bounds each renewal attempt by the deadline).
      electionConfig = settings.leaderElection().enabled() ? resolver.resolve(settings.client().kubeconfig()) : null;
      if (electionConfig != null) {
        electionConfig.setRequestTimeout((int) settings.leaderElection().renewDeadline().toMillis());
        electionConfig.setRequestRetryBackoffLimit(0);
      }
      secure = settings.secureServing().map(s -> SecureServing.prepare(s, settings.component(),
          () -> resolver.resolve(settings.client().kubeconfig())));
    } catch (ConfigurationException e) {
      synchronized (lock) {
        terminating = true;
      }
      exitCode = 2;
      terminated.countDown();
      throw e;
    }
    log.info("starting {} (API server {}, leader election {})", settings.component(), config.getMasterUrl(),
        settings.leaderElection().enabled() ? "on, lease " + settings.leaderElection().resourceNamespace() + "/"
            + settings.leaderElection().resourceName() + ", identity " + identity : "off");
    try {
      synchronized (lock) {
        if (terminating) {
          return;
        }
        if (installShutdownHook) {
          shutdownHook = new Thread(() -> terminate(0, "received SIGTERM", drainTimeout),
              settings.component() + "-shutdown");
          Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
        metrics = new DaemonMetrics();
        routes = EndpointRoutes.forDaemon(metrics.registry(), readiness);
        if (settings.plainServing()) {
          endpoint = DaemonEndpoint.start(new InetSocketAddress(settings.port()), routes);
        }
        if (secure.isPresent()) {
          secureServing = secure.get();
          secureServing.start(routes);
        }
        client = KubeClients.create(config, settings.client());
        if (electionConfig != null) {
          ClientSettings electionSettings = new ClientSettings(settings.client().kubeconfig(),
              settings.client().qps(), settings.client().burst(), settings.component() + "/leader-election");
          electionClient = KubeClients.create(electionConfig, electionSettings);
        }
        eventsClient = KubeClients.create(eventsConfig, settings.client());
        informers = SharedInformerFactory.droppingManagedFields(client, workload.informerResyncPeriod());
        DaemonInstance instance = new DaemonInstance(identity,
            endpoint == null ? OptionalInt.empty() : OptionalInt.of(endpoint.port()),
            secureServing == null ? OptionalInt.empty() : OptionalInt.of(secureServing.port()),
            secureServing == null ? Optional.empty() : Optional.of(secureServing.certificate()),
            settings.leaderElection().enabled() ? Optional.of(leaseAnnotations) : Optional.empty());
        workload.build(new DaemonContext(settings, client, informers, metrics.registry(), routes, eventsClient,
            instance));
      }
    } catch (Exception e) {
      log.error("{} failed to start", settings.component(), e);
      terminateAsync(1, "startup failed: " + e.getMessage(), Duration.ZERO);
      return;
    }
    Thread startup = new Thread(this::runStartup, settings.component() + "-startup");
    startup.setDaemon(true);
    startup.start();
  }

  /**
   * Waits until the daemon has stopped and returns the exit status. The exiter is called right after (it must run
   * last: the system exiter does not return).
   */
  public int awaitTermination() throws InterruptedException {
    terminated.await();
    return exitCode;
  }

  /** Waits up to {@code timeout}; the exit status if the daemon has terminated by then. */
  public Optional<Integer> awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS) ? Optional.of(exitCode) : Optional.empty();
  }

  /**
   * Shuts down as on SIGTERM (drain, release the Lease, exit 0) and returns once done; if a termination is already
   * running, waits for it instead.
   */
  public void shutdown() {
    terminate(0, "shutdown requested", drainTimeout);
  }

  /**
   * The port plain HTTP {@code /healthz}, {@code /livez}, {@code /readyz} and {@code /metrics} are served on, once
   * started.
   *
   * @throws IllegalStateException if the plain endpoint is not serving (not started, or {@code --secure-port}
   *     given without {@code --port})
   */
  public int port() {
    synchronized (lock) {
      if (endpoint == null) {
        throw new IllegalStateException("the endpoint is not serving");
      }
      return endpoint.port();
    }
  }

  /**
   * The port HTTPS is served on, once started ({@code --secure-port}; the bound one when that was 0).
   *
   * @throws IllegalStateException if the secure endpoint is not serving (not started, or no {@code --secure-port})
   */
  public int securePort() {
    synchronized (lock) {
      if (secureServing == null) {
        throw new IllegalStateException("the secure endpoint is not serving");
      }
      return secureServing.port();
    }
  }

  /**
   * The paths both endpoints serve, once started; a component registers more here (or on
   * {@link DaemonContext#routes()} while building), such as {@code /debug/...}.
   */
  public EndpointRoutes routes() {
    synchronized (lock) {
      if (routes == null) {
        throw new IllegalStateException("the daemon has not started");
      }
      return routes;
    }
  }

  /** Whether {@code /readyz} would answer 200 now. */
  public boolean isReady() {
    return readiness.isReady();
  }

  /** What {@code /readyz} would list now. */
  public List<String> unreadyReasons() {
    return readiness.unreadyReasons();
  }

  /** This instance's leader-election identity. */
  public String identity() {
    return identity;
  }

  /** Whether this instance holds the Lease (always false with election off). */
  public boolean isLeading() {
    LeaderElection e;
    synchronized (lock) {
      e = election;
    }
    return e != null && e.isLeading();
  }

  /** The Lease holder this instance last observed, if election is on and it observed one. */
  public Optional<String> observedLeader() {
    LeaderElection e;
    synchronized (lock) {
      e = election;
    }
    return e == null ? Optional.empty() : e.observedLeader();
  }

  private void runStartup() {
    try {
      SharedInformerFactory factory;
      synchronized (lock) {
        if (terminating) {
          return;
        }
        factory = informers;
        factory.start();
      }
      long polls = 0;
      while (!factory.waitForCacheSync(SYNC_POLL)) {
        if (isTerminating()) {
          return;
        }
        if (++polls % SYNC_LOG_EVERY_POLLS == 0) {
          log.info("waiting for informer caches to sync ({} s)", polls * SYNC_POLL.toSeconds());
        }
      }
      readiness.synced();
      log.info("informer caches synced");
      if (settings.leaderElection().enabled()) {
        synchronized (lock) {
          if (terminating) {
            return;
          }
          election = new LeaderElection(electionClient, settings.leaderElection(), identity,
              metrics.registry(), new Leadership(), leaseAnnotations);
          election.start();
        }
      } else {
        startWork();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("{} failed to start", settings.component(), e);
      terminateAsync(1, "startup failed: " + e.getMessage(), Duration.ZERO);
    }
  }

  private void startWork() {
    synchronized (lock) {
      if (terminating || workStarted) {
        return;
      }
      workStarted = true;
      log.info("starting work");
      workload.startWork();
    }
  }

  private boolean isTerminating() {
    synchronized (lock) {
      return terminating;
    }
  }

  private String leaderDescription() {
    return observedLeader().filter(l -> !l.isEmpty()).map(l -> "lease held by " + l).orElse("");
  }

  /** Leadership changes, from the election thread (or the thread stopping the election). */
  private final class Leadership implements LeadershipListener {
    @Override
    public void startedLeading() {
      readiness.leading(true);
      try {
        startWork();
      } catch (RuntimeException e) {
        log.error("starting work failed", e);
        terminateAsync(1, "starting work failed: " + e.getMessage(), Duration.ZERO);
      }
    }

    @Override
    public void stoppedLeading() {
      readiness.leading(false);
      if (isTerminating()) {
        return; // our own shutdown released the Lease
      }
      log.error("leaderelection lost: lease {}/{} is no longer held by {}",
          settings.leaderElection().resourceNamespace(), settings.leaderElection().resourceName(), identity);
      // Not on this thread: termination stops the election, which waits for this very thread.
      terminateAsync(1, "leader election lost", Duration.ZERO);
    }
  }

  private void terminateAsync(int code, String reason, Duration drain) {
    Thread t = new Thread(() -> terminate(code, reason, drain), settings.component() + "-terminate");
    t.setDaemon(false);
    t.start();
  }

  /**
   * Stops everything in order and exits with {@code code}; if a termination is already running, waits for it to
   * finish instead (the first cause decides the status).
   */
  private void terminate(int code, String reason, Duration drain) {
    DaemonEndpoint endpointToStop;
    SecureServing secureToStop;
    KubernetesClient clientToClose;
    KubernetesClient electionClientToClose;
    KubernetesClient eventsClientToClose;
    SharedInformerFactory informersToStop;
    LeaderElection electionToStop;
    DaemonMetrics metricsToClose;
    Thread hook;
    boolean alreadyTerminating;
    synchronized (lock) {
      alreadyTerminating = terminating;
      terminating = true;
      readiness.shuttingDown();
      endpointToStop = endpoint;
      secureToStop = secureServing;
      clientToClose = client;
      electionClientToClose = electionClient;
      eventsClientToClose = eventsClient;
      informersToStop = informers;
      electionToStop = election;
      metricsToClose = metrics;
      hook = shutdownHook;
    }
    if (alreadyTerminating) {
      awaitQuietly();
      return;
    }
    log.info("shutting down {}: {}", settings.component(), reason);
    startWatchdog(code);
    step("stop work", () -> {
      if (!workload.stopWork(drain) && !drain.isZero()) {
        log.warn("work did not drain within {}", GoDurations.format(drain));
      }
    });
    if (informersToStop != null) {
      step("stop informers", informersToStop::shutdown);
    }
    if (electionToStop != null) {
      step("stop leader election", electionToStop::stop);
    }
    if (endpointToStop != null) {
      step("stop endpoint", endpointToStop::stop);
    }
    if (secureToStop != null) {
      step("stop secure endpoint", secureToStop::stop);
    }
    if (clientToClose != null) {
      step("close client", clientToClose::close);
    }
    if (electionClientToClose != null) {
      step("close leader election client", electionClientToClose::close);
    }
    if (eventsClientToClose != null) {
      step("close events client", eventsClientToClose::close);
    }
    if (metricsToClose != null) {
      step("close metrics", metricsToClose::close);
    }
    if (hook != null && !JvmExiter.shuttingDown()) {
      step("remove shutdown hook", () -> Runtime.getRuntime().removeShutdownHook(hook));
    }
    exitCode = code;
    terminated.countDown();
    log.info("{} stopped; exiting with status {}", settings.component(), code);
    exitOnce(code);
  }

  private void startWatchdog(int code) {
    Thread watchdog = new Thread(() -> {
      try {
        if (!terminated.await(SHUTDOWN_DEADLINE.toNanos(), TimeUnit.NANOSECONDS)) {
          log.error("shutdown did not finish within {}; exiting anyway", GoDurations.format(SHUTDOWN_DEADLINE));
          exitOnce(code);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, settings.component() + "-shutdown-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  private void exitOnce(int code) {
    if (exited.compareAndSet(false, true)) {
      exiter.exit(code);
    }
  }

  private void awaitQuietly() {
    try {
      terminated.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void step(String name, Step step) {
    try {
      step.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("shutdown step '{}' interrupted", name);
    } catch (Exception e) {
      log.warn("shutdown step '{}' failed", name, e);
    }
  }

  /** Options of a {@link Daemon}; not thread-safe. */
  public static final class Builder {
    private final DaemonSettings settings;
    private final DaemonWorkload workload;
    private Exiter exiter = Exiter.SYSTEM;
    private boolean installShutdownHook = true;
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    private ClientConfigResolver resolver = new ClientConfigResolver();

    private Builder(DaemonSettings settings, DaemonWorkload workload) {
      this.settings = Objects.requireNonNull(settings, "settings");
      this.workload = Objects.requireNonNull(workload, "workload");
    }

    /** Where the exit status goes; {@link Exiter#SYSTEM} by default. */
    public Builder exiter(Exiter exiter) {
      this.exiter = Objects.requireNonNull(exiter, "exiter");
      return this;
    }

    /**
     * Whether SIGTERM (a JVM shutdown hook) shuts the daemon down; true by default. Tests running several daemons
     * in one JVM turn it off and call {@link Daemon#shutdown()}.
     */
    public Builder installShutdownHook(boolean install) {
      this.installShutdownHook = install;
      return this;
    }

    /** How long queues may drain on shutdown; {@link #DEFAULT_DRAIN_TIMEOUT} by default. */
    public Builder drainTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.compareTo(SHUTDOWN_DEADLINE) >= 0) {
        throw new IllegalArgumentException("the drain timeout must be between 0 and " + SHUTDOWN_DEADLINE);
      }
      this.drainTimeout = timeout;
      return this;
    }

    Builder resolver(ClientConfigResolver resolver) {
      this.resolver = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    public Daemon build() {
      return new Daemon(this);
    }
  }
}
