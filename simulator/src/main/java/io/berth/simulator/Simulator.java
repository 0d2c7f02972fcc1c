package io.berth.simulator;

import io.berth.embedded.JulBridge;
import io.berth.simulator.dashboard.DashboardServer;
import io.berth.simulator.dashboard.EventBuffer;
import io.berth.simulator.dashboard.RunStatus;
import io.berth.simulator.scenario.Scenario;
import io.berth.simulator.scenario.ScenarioException;
import io.berth.simulator.scenario.ScenarioLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's command line. Without {@code --scenario} it runs {@link DemoScenario} (exit 0 when the informer's
 * cache ended in sync with the server, 1 otherwise); with {@code --scenario FILE} it validates the whole file first
 * (exit 2 naming the file, document and field if anything is wrong; nothing starts) and runs it with
 * {@link ScenarioRun} (exit 0 when its expectations held, 1 otherwise). Either way it serves the dashboard
 * ({@code --dashboard-port}, default 8080), prints the dashboard's URL and the kubeconfig's path, and keeps serving
 * until Ctrl-C; {@code --exit-when-done} exits when the run ends instead. Bad flags exit 2.
 */
@Command(name = "berth-simulator", mixinStandardHelpOptions = true,
    description = "Runs an embedded Kubernetes cluster with simulated nodes, Berth's scheduler and controllers, "
        + "a scenario, and a web dashboard.")
public final class Simulator implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.demo");
  /** Entries the dashboard's event stream keeps. */
  static final int EVENT_CAPACITY = 2000;

  @Option(names = "--port", description = "API server port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port = 0;

  @Option(names = "--kubeconfig", description = "Where to write a kubeconfig for kubectl (default: a temp file).")
  Path kubeconfig;

  @Option(names = "--scenario", paramLabel = "FILE",
      description = "A scenario file (manifests, nodes, timed steps; see simulator/scenarios/). Default: the "
          + "built-in demo.")
  Path scenarioFile;

  @Option(names = "--dashboard-port", description = "Port of the web dashboard on localhost; 0 picks a free one "
      + "(default: ${DEFAULT-VALUE}).")
  int dashboardPort = 8080;

  @Option(names = "--exit-when-done", description = "Exit when the scenario ends (0 if it passed, 1 if not) instead "
      + "of serving until Ctrl-C; for scripts and CI.")
  boolean exitWhenDone;

  @Option(names = "--keep-running", description = "Keep serving after the scenario until Ctrl-C (the default; "
      + "kept for compatibility).")
  boolean keepRunning;

  @Option(names = "--nodes", description = "Demo only: simulated nodes (default: ${DEFAULT-VALUE}).")
  int nodes = 4;

  @Option(names = "--zones", description = "Demo only: zones the nodes are spread over (default: ${DEFAULT-VALUE}).")
  int zones = 2;

  @Option(names = "--pods", description = "Demo only: pods the demo creates (default: ${DEFAULT-VALUE}).")
  int pods = 8;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || zones < 1 || pods < 2) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--nodes and --zones must be at least 1 and --pods at least 2");
    }
    if (keepRunning && exitWhenDone) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--keep-running and --exit-when-done exclude each other");
    }
    if (dashboardPort < 0 || dashboardPort > 65535) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--dashboard-port must be between 0 and 65535, got " + dashboardPort);
    }
    Scenario scenario = null;
    if (scenarioFile != null) {
      try {
        scenario = ScenarioLoader.load(scenarioFile);
      } catch (ScenarioException e) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("berth-simulator: " + e.getMessage());
        err.flush();
        return 2;
      }
    }
    JulBridge.install();
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "simulator-shutdown"));
    EventBuffer events = new EventBuffer(EVENT_CAPACITY);
    return scenario == null ? runDemo(events) : runScenario(scenario, events);
  }

  private int runDemo(EventBuffer events) throws Exception {
    RunStatus status = new RunStatus("demo", "The built-in demo: a Deployment rolled out and updated, a node "
        + "cordoned, pods deleted, watches dropped and expired.");
    DashboardHolder dashboard = new DashboardHolder();
    DemoScenario demo = new DemoScenario(new DemoScenario.Options(port, kubeconfig, nodes, zones, pods))
        .observe(run -> dashboard.start(run, status, events), line -> {
          status.set(line);
          events.append(Instant.now(), "Normal", "Step", "Scenario demo", line, "berth-simulator");
        });
    try {
      DemoScenario.Summary summary;
      try {
        summary = demo.run();
      } catch (UncheckedIOException e) {
        return dashboardPortInUse(e);
      }
      status.finish(summary.inSync() ? "done: the informer's cache is in sync with the server"
          : "done: the informer's cache is OUT OF SYNC with the server");
      serveUntilStopped(demo.cluster().url(), demo.cluster().kubeconfig(), "demo");
      return summary.inSync() ? 0 : 1;
    } finally {
      dashboard.close();
      demo.close();
    }
  }

  private int runScenario(Scenario scenario, EventBuffer events) throws Exception {
    RunStatus status = new RunStatus(scenario.name(), scenario.description());
    DashboardHolder dashboard = new DashboardHolder();
    try (ScenarioRun run = new ScenarioRun(scenario)) {
      RunningCluster running;
      try {
        running = run.start(port, kubeconfig, status, events, r -> dashboard.start(r, status, events));
      } catch (UncheckedIOException e) {
        return dashboardPortInUse(e);
      }
      LOG.info("scenario {} from {}: {} nodes, {} objects, {} steps", scenario.name(), scenario.file(),
          scenario.nodes().size(), scenario.manifests().size(), scenario.steps().size());
      ScenarioRun.Outcome outcome;
      try {
        outcome = run.run();
      } catch (IllegalStateException e) {
        spec.commandLine().getErr().println("berth-simulator: " + e.getMessage());
        spec.commandLine().getErr().flush();
        return 2;
      }
      if (outcome.passed()) {
        LOG.info("scenario {} passed", scenario.name());
      } else {
        outcome.failures().forEach(f -> LOG.warn("scenario {}: {}", scenario.name(), f));
      }
      serveUntilStopped(running.cluster().url(), running.cluster().kubeconfig(), null);
      return outcome.passed() ? 0 : 1;
    } finally {
      dashboard.close();
    }
  }

  private int dashboardPortInUse(UncheckedIOException e) {
    spec.commandLine().getErr().println("berth-simulator: --dashboard-port " + dashboardPort + ": cannot serve the "
        + "dashboard: " + e.getCause().getMessage() + " (pick another port, or 0 for a free one)");
    spec.commandLine().getErr().flush();
    return 2;
  }

  private void serveUntilStopped(String url, Path kubeconfigFile, String namespace) throws InterruptedException {
    if (exitWhenDone) {
      return;
    }
    LOG.info("serving at {}; try: kubectl --kubeconfig {} get pods {} -o wide   (Ctrl-C to stop)", url,
        kubeconfigFile, namespace == null ? "-A" : "-n " + namespace);
    stop.await();
  }

  /** Starts the dashboard once the cluster runs and prints where it and the kubeconfig are. One thread. */
  private final class DashboardHolder implements AutoCloseable {
    private DashboardServer server;

    void start(RunningCluster run, RunStatus status, EventBuffer events) {
      try {
        server = DashboardServer.start(dashboardPort, run, status, events);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println("dashboard:  " + server.url());
      out.println("kubeconfig: " + run.cluster().kubeconfig());
      out.println("try:        kubectl --kubeconfig " + run.cluster().kubeconfig() + " get pods -A -o wide");
      out.flush();
    }

    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
    }
  }

  public static void main(String[] args) {
    int exit = new CommandLine(new Simulator()).execute(args);
    System.exit(exit);
  }
}
