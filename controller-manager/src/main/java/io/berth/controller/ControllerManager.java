package io.berth.controller;

import io.berth.component.ConfigurationException;
import io.berth.component.Daemon;
import io.berth.component.Exiter;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The {@code berth-controller-manager} daemon: the shared {@link Daemon} lifecycle running the enabled controllers
 * of a {@link ControllerRegistry}. Start it, then: the endpoint serves {@code /healthz} {@code /readyz}
 * {@code /metrics}; the controllers are created (registering their informers on one shared informer factory); the
 * informers start and sync; once this instance leads (or election is off) every controller starts with its
 * {@code --concurrent-*-syncs} workers. On {@link #shutdown()} or SIGTERM: the controllers drain, the informers
 * stop, the Lease is released, the endpoint stops, and the {@link Exiter} gets 0; on losing the Lease the
 * controllers stop at once and the exiter gets 1 (see {@link Daemon} for the whole contract).
 *
 * <p>Thread-safe; one instance per daemon run.
 */
public final class ControllerManager {

  /** The daemon's name: User-Agent, log name, default Lease name. */
  public static final String NAME = "berth-controller-manager";
  /** kube-controller-manager's port. */
  public static final int DEFAULT_PORT = 10257;

  private final ControllerWorkload workload;
  private final Daemon daemon;

  private ControllerManager(Builder b) {
    this.workload = new ControllerWorkload(b.settings, b.registry, b.events);
    this.daemon = Daemon.builder(b.settings.daemon(), workload).exiter(b.exiter)
        .installShutdownHook(b.installShutdownHook).drainTimeout(b.drainTimeout).build();
  }

  public static Builder builder(ControllerManagerSettings settings, ControllerRegistry registry) {
    return new Builder(settings, registry);
  }

  /**
   * Starts the daemon; returns once the endpoint serves and the controllers are created.
   *
   * @throws ConfigurationException if the client configuration cannot be used (nothing started)
   */
  public void start() {
    daemon.start();
  }

  /** {@link #start()}, then waits for termination and returns the exit status. */
  public int run() throws InterruptedException {
    return daemon.run();
  }

  /** Shuts down as on SIGTERM and returns once done (the exiter has been called with 0). */
  public void shutdown() {
    daemon.shutdown();
  }

  /** Waits for termination and returns the exit status. */
  public int awaitTermination() throws InterruptedException {
    return daemon.awaitTermination();
  }

  /** Waits up to {@code timeout} for termination; the exit status if terminated. */
  public Optional<Integer> awaitTermination(Duration timeout) throws InterruptedException {
    return daemon.awaitTermination(timeout);
  }

  /** The port of {@code /healthz}, {@code /readyz} and {@code /metrics}. */
  public int port() {
    return daemon.port();
  }

  public boolean isReady() {
    return daemon.isReady();
  }

  public boolean isLeading() {
    return daemon.isLeading();
  }

  /** This instance's leader-election identity. */
  public String identity() {
    return daemon.identity();
  }

  /** The Lease holder this instance last observed (election on). */
  public Optional<String> observedLeader() {
    return daemon.observedLeader();
  }

  /** The names of the controllers created, once started. */
  public List<String> controllers() {
    return workload.controllers().stream().map(Controller::name).toList();
  }

  /** Options of a {@link ControllerManager}; not thread-safe. */
  public static final class Builder {
    private final ControllerManagerSettings settings;
    private final ControllerRegistry registry;
    private Function<KubernetesClient, EventRecorderFactory> events = KubernetesEventRecorderFactory::new;
    private Exiter exiter = Exiter.SYSTEM;
    private boolean installShutdownHook = true;
    private Duration drainTimeout = Daemon.DEFAULT_DRAIN_TIMEOUT;

    private Builder(ControllerManagerSettings settings, ControllerRegistry registry) {
      this.settings = Objects.requireNonNull(settings, "settings");
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** How controllers record Events; core/v1 Events through the daemon's client by default. */
    public Builder events(EventRecorderFactory events) {
      Objects.requireNonNull(events, "events");
      this.events = client -> events;
      return this;
    }

    /** How controllers record Events, built from the daemon's client once it exists. */
    public Builder eventsForClient(Function<KubernetesClient, EventRecorderFactory> eventsForClient) {
      this.events = Objects.requireNonNull(eventsForClient, "eventsForClient");
      return this;
    }

    /** Where the exit status goes; {@link Exiter#SYSTEM} by default. */
    public Builder exiter(Exiter exiter) {
      this.exiter = Objects.requireNonNull(exiter, "exiter");
      return this;
    }

    /** Whether SIGTERM shuts down; true by default, false for several instances in one JVM (tests). */
    public Builder installShutdownHook(boolean install) {
      this.installShutdownHook = install;
      return this;
    }

    /** How long controllers may drain on shutdown; 15 s by default. */
    public Builder drainTimeout(Duration timeout) {
      this.drainTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public ControllerManager build() {
      return new ControllerManager(this);
    }
  }
}
