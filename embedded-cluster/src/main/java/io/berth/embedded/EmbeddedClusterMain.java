package io.berth.embedded;

import io.berth.embedded.kubelet.KubeletSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an embedded cluster as a process: {@code [--port N] [--kubeconfig FILE] [--nodes N] [--zones N]
 * [--pod-startup-delay-ms N] [--rbac[=true|false]] [--tls[=true|false]] [--gpus N] [--gpu-model MODEL]}. With
 * {@code --gpus N} every node publishes N GPUs of driver {@value SimulatedGpus#DRIVER} (model {@code --gpu-model},
 * default {@value GpuSpec#DEFAULT_MODEL}) as a DRA ResourceSlice, and the DeviceClass {@value SimulatedGpus#DEVICE_CLASS}
 * exists. With {@code --rbac} requests are
 * authenticated and authorized by RBAC, and the kubeconfig written (and logged) authenticates as the admin
 * ({@code system:masters}); with {@code --tls} the server listens with a self-signed certificate the kubeconfig
 * trusts (kubectl sends its token only over TLS). Prints
 * nothing but logs; stops on SIGTERM or Ctrl-C. Unknown flags exit with status 2 and a message naming the flag.
 */
public final class EmbeddedClusterMain {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedClusterMain.class);

  private EmbeddedClusterMain() {
  }

  /** Parsed command line; immutable. */
  record Options(int port, Path kubeconfig, int nodes, int zones, long startupDelayMs, boolean rbac, boolean tls,
      GpuSpec gpus) {

    static Options parse(String[] args) {
      int port = 0;
      Path kubeconfig = null;
      int nodes = 3;
      int zones = 1;
      long delay = 500;
      boolean rbac = false;
      boolean tls = false;
      int gpus = 0;
      String gpuModel = GpuSpec.DEFAULT_MODEL;
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String value;
        String name = arg;
        int eq = arg.indexOf('=');
        if (eq > 0) {
          name = arg.substring(0, eq);
          value = arg.substring(eq + 1);
        } else if (arg.equals("--rbac") || arg.equals("--tls")) {
          value = "true";
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new IllegalArgumentException("flag " + arg + " needs a value");
        }
        try {
          switch (name) {
            case "--port" -> port = Integer.parseInt(value);
            case "--kubeconfig" -> kubeconfig = Path.of(value);
            case "--nodes" -> nodes = Integer.parseInt(value);
            case "--zones" -> zones = Integer.parseInt(value);
            case "--pod-startup-delay-ms" -> delay = Long.parseLong(value);
            case "--rbac" -> rbac = parseBoolean(name, value);
            case "--tls" -> tls = parseBoolean(name, value);
            case "--gpus" -> gpus = Integer.parseInt(value);
            case "--gpu-model" -> gpuModel = value;
            default -> throw new IllegalArgumentException("unknown flag: " + name);
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("flag " + name + " needs an integer, got \"" + value + "\"");
        }
      }
      GpuSpec gpuSpec;
      try {
        gpuSpec = new GpuSpec(gpus, gpuModel, GpuSpec.DEFAULT_MEMORY);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("flag --" + e.getMessage());
      }
      return new Options(port, kubeconfig, nodes, Math.max(1, zones), delay, rbac, tls, gpuSpec);
    }

    private static boolean parseBoolean(String name, String value) {
      return switch (value) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new IllegalArgumentException("flag " + name + " needs true or false, got \"" + value + "\"");
      };
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      // A usage error of the command line goes to stderr, not the log: logging is not configured for it yet.
      System.err.println("embedded-cluster: " + e.getMessage());
      System.err.println("usage: [--port N] [--kubeconfig FILE] [--nodes N] [--zones N] [--pod-startup-delay-ms N] "
          + "[--rbac] [--tls] [--gpus N] [--gpu-model MODEL]");
      System.exit(2);
      return;
    }
    JulBridge.install();
    EmbeddedCluster cluster = EmbeddedCluster.builder().port(options.port()).kubeconfig(options.kubeconfig())
        .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(options.startupDelayMs())))
        .rbac(options.rbac()).tls(options.tls()).start();
    for (int i = 0; i < options.nodes(); i++) {
      cluster.nodes().add(NodeSpec.node("node-" + i).withZone("zone-" + (char) ('a' + i % options.zones()))
          .withRegion("region-1").withGpus(options.gpus()));
    }
    LOG.info("embedded cluster ready at {} with {} nodes ({} GPUs each), RBAC {}; kubeconfig{}: {}", cluster.url(),
        options.nodes(), options.gpus().count(), options.rbac() ? "on" : "off", options.rbac() ? " (admin)" : "",
        cluster.kubeconfig());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cluster.close();
      stopped.countDown();
    }, "embedded-cluster-shutdown"));
    stopped.await();
  }
}
