package io.berth.component;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election over a {@code coordination.k8s.io/v1} Lease with fabric8's {@link LeaderElector} (client-go's
 * {@code leaderelection} package): acquire the Lease when it is free or expired, renew it every retry period while
 * leading, stop leading when someone else holds the Lease or no renewal succeeded within the renew deadline, and on
 * {@link #stop()} release it (empty holder) so that a standby takes over at its next retry rather than after the
 * lease duration. The Lease is read and written by {@link LeaseResourceLock}, as client-go writes it.
 *
 * <p>The renew deadline is enforced here too, not only by fabric8: fabric8 checks it between renewal attempts, so a
 * renewal request that hangs would keep this instance "leading" past the point where a standby may take the Lease.
 * A watchdog checks every retry period that the last successful renewal is younger than the renew deadline, and
 * otherwise stops leading at once, as client-go's renew loop (whose attempts are bounded by the deadline) does.
 *
 * <p>Publishes client-go's gauge {@code leader_election_master_status{name="<lease name>"}}: 1 while this instance
 * leads, 0 otherwise. Identity is {@code hostname_<random UUID>}, as kube-controller-manager's.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} once (idempotent). Thread-safe: {@code leading} is atomic;
 * listener calls are serialised by {@code listenerLock}, so the listener sees started/stopped alternate;
 * {@code observedLeader} is volatile; {@code future} and {@code stopped} are guarded by {@code this}.
 */
public final class LeaderElection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  private final KubernetesClient client;
  private final LeaderElectionSettings settings;
  private final String identity;
  private final LeadershipListener listener;
  private final LeaseResourceLock lock;
  private final ExecutorService executor;
  private final ScheduledExecutorService watchdog;
  private final Object listenerLock = new Object();
  private final AtomicBoolean leading = new AtomicBoolean();
  // written in fabric8's callbacks
  private volatile String observedLeader;
  // guarded by this
  private CompletableFuture<?> future;
  // guarded by this
  private boolean stopped;

  /**
   * An election, not yet started.
   *
   * @param client the client for the Lease only (its own rate limiter, requests bounded by the renew deadline);
   *     not closed here
   * @param settings the Lease and timings; must be enabled and valid
   * @param identity this instance's identity, see {@link #newIdentity()}
   * @param registry where the {@code leader_election_master_status} gauge goes
   * @param listener told of leadership changes
   */
  public LeaderElection(KubernetesClient client, LeaderElectionSettings settings, String identity,
      MeterRegistry registry, LeadershipListener listener) {
    this(client, settings, identity, registry, listener, new LeaseAnnotations());
  }

  /**
   * An election, not yet started, that writes {@code annotations}' published annotations onto the Lease while it
   * holds it and remembers each Lease it reads there (see {@link LeaseAnnotations}).
   */
  public LeaderElection(KubernetesClient client, LeaderElectionSettings settings, String identity,
      MeterRegistry registry, LeadershipListener listener, LeaseAnnotations annotations) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Objects.requireNonNull(settings, "settings").validate();
    this.identity = Objects.requireNonNull(identity, "identity");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.lock = new LeaseResourceLock(settings.resourceNamespace(), settings.resourceName(), identity,
        annotations);
    this.executor = Executors.newSingleThreadExecutor(r -> daemonThread(r, "leader-election-"));
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemonThread(r, "leader-election-watchdog-"));
    Gauge.builder("leader.election.master.status", leading, l -> l.get() ? 1 : 0)
        .description("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup,"
            + " 1 indicates master. 'name' is the string used to identify the lease.")
        .tag("name", settings.resourceName())
        .register(registry);
  }

  /** {@code hostname_<random UUID>}, unique per process start. */
  public static String newIdentity() {
    return hostname() + "_" + UUID.randomUUID();
  }

  /** Starts trying to acquire the Lease; returns at once. */
  public synchronized void start() {
    if (future != null || stopped) {
      throw new IllegalStateException("a leader election is started once");
    }
    LeaderCallbacks callbacks = new LeaderCallbacks(this::onStartLeading, this::onStopLeading, this::onNewLeader);
    LeaderElectionConfig config = new LeaderElectionConfig(lock, settings.leaseDuration(), settings.renewDeadline(),
        settings.retryPeriod(), callbacks, true, settings.resourceName());
    log.info("attempting to acquire leader lease {}/{} as {}", settings.resourceNamespace(),
        settings.resourceName(), identity);
    long period = settings.retryPeriod().toNanos();
    watchdog.scheduleWithFixedDelay(this::checkRenewDeadline, period, period, TimeUnit.NANOSECONDS);
    future = new LeaderElector(client, config, executor).start();
  }

  /**
   * Stops electing. If this instance leads, the Lease is released first (one update, bounded by the client's
   * request timeout) and {@link LeadershipListener#stoppedLeading()} is called; returns once that is done.
   * Idempotent.
   */
  public void stop() {
    CompletableFuture<?> f;
    synchronized (this) {
      if (stopped) {
        return;
      }
      stopped = true;
      f = future;
    }
    watchdog.shutdownNow();
    if (f != null) {
      // Cancelling runs fabric8's stopLeading on this thread: release (when leading), then onStopLeading.
      f.cancel(true);
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    loseLeadership("leader election stopped");
  }

  @Override
  public void close() {
    stop();
  }

  /** Whether this instance holds the Lease now (as last observed). */
  public boolean isLeading() {
    return leading.get();
  }

  /** The holder this instance last observed, if any. */
  public Optional<String> observedLeader() {
    return Optional.ofNullable(observedLeader);
  }

  public String identity() {
    return identity;
  }

  private void onStartLeading() {
    synchronized (listenerLock) {
      if (!leading.compareAndSet(false, true)) {
        return;
      }
      log.info("successfully acquired lease {}/{}", settings.resourceNamespace(), settings.resourceName());
      listener.startedLeading();
    }
  }

  private void onStopLeading() {
    // fabric8 may report the end of a leadership twice (observed new holder, then the renew loop ending).
    loseLeadership("lease lost");
  }

  private void loseLeadership(String why) {
    synchronized (listenerLock) {
      if (!leading.compareAndSet(true, false)) {
        return;
      }
      log.info("stopped leading lease {}/{}: {}", settings.resourceNamespace(), settings.resourceName(), why);
      listener.stoppedLeading();
    }
  }

  private void checkRenewDeadline() {
    if (!leading.get()) {
      return;
    }
    OptionalLong last = lock.lastRenewNanos();
    if (last.isPresent() && System.nanoTime() - last.getAsLong() > settings.renewDeadline().toNanos()) {
      log.error("failed to renew lease {}/{} within {}", settings.resourceNamespace(), settings.resourceName(),
          GoDurations.format(settings.renewDeadline()));
      loseLeadership("renew deadline passed");
    }
  }

  private void onNewLeader(String holder) {
    observedLeader = holder;
    if (holder == null || holder.isEmpty()) {
      log.info("lease {}/{} is free", settings.resourceNamespace(), settings.resourceName());
    } else if (!holder.equals(identity)) {
      log.info("new leader elected: {} holds lease {}/{}", holder, settings.resourceNamespace(),
          settings.resourceName());
    }
    listener.newLeader(holder == null ? "" : holder);
  }

  private Thread daemonThread(Runnable r, String prefix) {
    Thread t = new Thread(r, prefix + settings.resourceName());
    t.setDaemon(true);
    return t;
  }

  private static String hostname() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
