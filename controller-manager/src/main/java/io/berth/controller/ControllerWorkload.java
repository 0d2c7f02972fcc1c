package io.berth.controller;

import io.berth.component.DaemonContext;
import io.berth.component.DaemonWorkload;
import io.berth.workqueue.SystemClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller manager's work for the shared {@link io.berth.component.Daemon}: builds a
 * {@link ControllerContext} per controller over the daemon's informer factory and registry and a client of the
 * controller's own (its own token bucket, {@link DaemonContext#clientFor}), creates every enabled controller
 * (which registers its informers), starts each with its {@code --concurrent-*-syncs} workers, and shuts
 * them down in parallel within the drain timeout.
 *
 * <p>Thread-safe: {@code controllers} is written once by {@link #build} before the daemon starts any other thread
 * that calls in, and published through a volatile field; each controller is thread-safe itself.
 */
final class ControllerWorkload implements DaemonWorkload {

  private static final Logger log = LoggerFactory.getLogger(ControllerWorkload.class);
  /** kube-controller-manager's {@code --min-resync-period} default; informers resync at 1x to 2x of it. */
  private static final Duration MIN_RESYNC_PERIOD = Duration.ofHours(12);
  /** Grace beyond the drain timeout for shutDown calls to return (a zero timeout still takes a moment). */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(1);

  private final ControllerManagerSettings settings;
  private final ControllerRegistry registry;
  private final Function<KubernetesClient, EventRecorderFactory> eventsForClient;
  // written once by build
  private volatile EventRecorderFactory events;
  // written once by build
  private volatile List<Controller> controllers = List.of();

  ControllerWorkload(ControllerManagerSettings settings, ControllerRegistry registry,
      Function<KubernetesClient, EventRecorderFactory> eventsForClient) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.eventsForClient = Objects.requireNonNull(eventsForClient, "eventsForClient");
  }

  @Override
  public Duration informerResyncPeriod() {
    // kube-controller-manager's ResyncPeriod: a random period between the minimum and twice it, so that the
    // informers of several instances do not resync in step.
    long min = MIN_RESYNC_PERIOD.toMillis();
    return Duration.ofMillis(min + ThreadLocalRandom.current().nextLong(min));
  }

  @Override
  public void build(DaemonContext daemon) {
    events = eventsForClient.apply(daemon.client());
    ControllerMetrics metrics = new ControllerMetrics(daemon.metrics());
    List<Controller> created = new ArrayList<>();
    for (String name : registry.names()) {
      if (!settings.controllers().contains(name)) {
        log.info("controller {} is disabled", name);
        continue;
      }
      ControllerFactory factory = registry.factory(name).orElseThrow();
      metrics.register(name);
      // each controller its own client (its own --kube-api-qps budget, User-Agent berth-controller-manager/<name>)
      // over the daemon's connection, as kube-controller-manager builds a clientset per controller
      ControllerContext context = new ControllerContext(daemon.clientFor(name), daemon.informers(),
          daemon.metrics(), events, SystemClock.INSTANCE);
      created.add(factory.create(context));
    }
    controllers = List.copyOf(created);
  }

  @Override
  public void startWork() {
    for (Controller controller : controllers) {
      int workers = settings.workers(controller.name());
      log.info("starting controller {} with {} workers", controller.name(), workers);
      controller.start(workers);
    }
  }

  @Override
  public boolean stopWork(Duration timeout) throws InterruptedException {
    List<Controller> toStop = controllers;
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean allDone = new AtomicBoolean(true);
    for (Controller controller : toStop) {
      Thread t = new Thread(() -> {
        try {
          if (!controller.shutDown(timeout)) {
            allDone.set(false);
            log.warn("controller {} did not finish its syncs within {}", controller.name(), timeout);
          }
        } catch (InterruptedException e) {
          allDone.set(false);
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          allDone.set(false);
          log.warn("controller {} failed to shut down", controller.name(), e);
        }
      }, "shutdown-" + controller.name());
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    long deadline = System.nanoTime() + timeout.plus(SHUTDOWN_GRACE).toNanos();
    for (Thread t : threads) {
      long remaining = deadline - System.nanoTime();
      if (remaining > 0) {
        TimeUnit.NANOSECONDS.timedJoin(t, remaining);
      }
      if (t.isAlive()) {
        allDone.set(false);
      }
    }
    if (events instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        log.warn("closing the event recorder failed", e);
      }
    }
    return allDone.get();
  }

  /** The controllers created by {@link #build}, in registry order. */
  List<Controller> controllers() {
    return controllers;
  }
}
