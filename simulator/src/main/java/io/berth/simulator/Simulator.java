package io.berth.simulator;

import io.berth.embedded.JulBridge;
import java.nio.file.Path;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The simulator's command line: runs {@link DemoScenario} on an embedded cluster and exits 0 when the informer's
 * cache ended in sync with the server (1 otherwise, 2 for bad flags); with {@code --keep-running} it then keeps
 * serving the cluster for kubectl until interrupted.
 */
@Command(name = "berth-simulator", mixinStandardHelpOptions = true,
    description = "Runs an embedded Kubernetes cluster with simulated nodes and Berth's parts against it.")
public final class Simulator implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.demo");

  @Option(names = "--port", description = "API server port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port = 0;

  @Option(names = "--kubeconfig", description = "Where to write a kubeconfig for kubectl (default: a temp file).")
  Path kubeconfig;

  @Option(names = "--nodes", description = "Simulated nodes (default: ${DEFAULT-VALUE}).")
  int nodes = 4;

  @Option(names = "--zones", description = "Zones the nodes are spread over (default: ${DEFAULT-VALUE}).")
  int zones = 2;

  @Option(names = "--pods", description = "Pods the demo creates (default: ${DEFAULT-VALUE}).")
  int pods = 8;

  @Option(names = "--keep-running", description = "Keep serving the cluster after the demo until Ctrl-C.")
  boolean keepRunning;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || zones < 1 || pods < 2) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--nodes and --zones must be at least 1 and --pods at least 2");
    }
    JulBridge.install();
    DemoScenario scenario = new DemoScenario(new DemoScenario.Options(port, kubeconfig, nodes, zones, pods));
    try {
      DemoScenario.Summary summary = scenario.run();
      if (keepRunning) {
        LOG.info("serving at {}; try: kubectl --kubeconfig {} get pods -n demo -o wide   (Ctrl-C to stop)",
            scenario.cluster().url(), scenario.cluster().kubeconfig());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "simulator-shutdown"));
        stop.await();
      }
      return summary.inSync() ? 0 : 1;
    } finally {
      scenario.close();
    }
  }

  public static void main(String[] args) {
    int exit = new CommandLine(new Simulator()).execute(args);
    System.exit(exit);
  }

}
