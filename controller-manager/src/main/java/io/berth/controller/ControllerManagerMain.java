package io.berth.controller;

import io.berth.component.DaemonCommandLine;
import io.berth.component.DaemonOptions;
import io.berth.component.Exiter;
import io.berth.component.Logging;
import java.util.Objects;
import java.util.function.Function;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code java -jar berth-controller-manager.jar [flags]}: parses the flags of DESIGN.md's command-line contract
 * ({@link DaemonOptions} and {@link ControllerManagerOptions}) and runs a {@link ControllerManager} until it
 * terminates. Exit statuses: 0 after SIGTERM, 1 on failure or lost leadership, 2 for an unknown flag, a bad value
 * or an unusable configuration (the message names the flag or field). One instance per run; confined to the main
 * thread.
 */
@Command(name = ControllerManager.NAME, sortOptions = true,
    description = "Runs the Berth controllers (ReplicaSet, Deployment) against a Kubernetes API server.")
public final class ControllerManagerMain implements Callable<Integer> {

  @Mixin
  private final DaemonOptions daemonOptions = new DaemonOptions(ControllerManager.DEFAULT_PORT,
      ControllerManager.NAME);

  @Mixin
  private final ControllerManagerOptions controllerOptions = new ControllerManagerOptions();

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  private boolean help;

  private final ControllerRegistry registry;
  private final Function<KubernetesClient, EventRecorderFactory> events;
  private final Exiter exiter;
  private final boolean installShutdownHook;

  ControllerManagerMain(ControllerRegistry registry, Function<KubernetesClient, EventRecorderFactory> events,
      Exiter exiter,
      boolean installShutdownHook) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.events = Objects.requireNonNull(events, "events");
    this.exiter = Objects.requireNonNull(exiter, "exiter");
    this.installShutdownHook = installShutdownHook;
  }

  public static void main(String[] args) {
    Logging.bridgeJulToSlf4j();
    int status = commandLineForClient(ControllerRegistry.builtIn(), KubernetesEventRecorderFactory::new,
        Exiter.SYSTEM, true).execute(args);
    // Reached for usage errors and --help; a daemon that ran has already exited through the exiter.
    Exiter.SYSTEM.exit(status);
  }

  /** Parses {@code args} and runs the daemon; returns the exit status (after the exiter got it, if it ran). */
  public static int execute(String[] args, ControllerRegistry registry, EventRecorderFactory events, Exiter exiter) {
    return commandLineForClient(registry, client -> events, exiter, true).execute(args);
  }

  /** The command line, for tests that capture its output or run several daemons in one JVM. */
  static CommandLine commandLine(ControllerRegistry registry, EventRecorderFactory events, Exiter exiter,
      boolean installShutdownHook) {
    return commandLineForClient(registry, client -> events, exiter, installShutdownHook);
  }

  /** The command line with event recorders built from the daemon's client. */
  static CommandLine commandLineForClient(ControllerRegistry registry,
      Function<KubernetesClient, EventRecorderFactory> events, Exiter exiter, boolean installShutdownHook) {
    return DaemonCommandLine.create(new ControllerManagerMain(registry, events, exiter, installShutdownHook));
  }

  /** The parsed flags as validated settings. */
  ControllerManagerSettings settings() {
    return controllerOptions.settings(daemonOptions.settings(ControllerManager.NAME), registry);
  }

  @Override
  public Integer call() throws InterruptedException {
    ControllerManager manager = ControllerManager.builder(settings(), registry).eventsForClient(events).exiter(exiter)
        .installShutdownHook(installShutdownHook).build();
    return manager.run();
  }
}
