package io.berth.conformance;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real control plane that {@code conformance/up} starts (etcd, kube-apiserver, kube-controller-manager without
 * the deployment and replicaset controllers, kube-scheduler, kwok) in a state directory, stopped by
 * {@code conformance/down} when the test run ends. One per test JVM, shared by every {@code *ConformanceIT}
 * through {@link ControlPlaneExtension}; tests isolate themselves by namespace and by the nodes they create.
 *
 * <p>Thread-safe: immutable after {@link #start}; the clients it hands out are fabric8's (thread-safe) and owned by
 * the caller, who closes them.
 */
final class ControlPlane implements ExtensionContext.Store.CloseableResource {

  private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);
  private static final Duration UP_TIMEOUT = Duration.ofMinutes(4);

  private final Path scripts;
  private final Path dir;

  private ControlPlane(Path scripts, Path dir) {
    this.scripts = scripts;
    this.dir = dir;
  }

  /**
   * Runs {@code conformance/up --nodes 0 --dir runDir} and waits for it.
   *
   * @throws IllegalStateException naming the log to read when it fails, or naming {@code conformance/build} when the
   *     binaries are missing
   */
  static ControlPlane start(Path scripts, Path runDir) throws IOException, InterruptedException {
    Files.createDirectories(runDir.getParent());
    Path log = runDir.resolveSibling(runDir.getFileName() + "-up.log");
    Process up = new ProcessBuilder(scripts.resolve("up").toString(), "--nodes", "0", "--dir", runDir.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!up.waitFor(UP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      up.destroyForcibly();
      throw new IllegalStateException("conformance/up did not finish within " + UP_TIMEOUT + "; see " + log);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    if (up.exitValue() == 2) {
      throw new IllegalStateException("conformance/up cannot run (exit 2): " + output.strip()
          + "\nBuild the control plane first: nice -n 19 conformance/build");
    }
    if (up.exitValue() != 0) {
      throw new IllegalStateException("conformance/up failed (exit " + up.exitValue() + "):\n" + output);
    }
    LOG.info("control plane up: {}", output.strip());
    return new ControlPlane(scripts, runDir);
  }

  /** The state directory: {@code logs/}, {@code kubeconfigs/}, {@code pki/}. */
  Path dir() {
    return dir;
  }

  /** etcd's client URL (plain HTTP on loopback), for what only etcd can do, such as compacting its history. */
  String etcdUrl() throws IOException {
    return envValue("BERTH_ETCD");
  }

  /** kube-apiserver's URL. */
  String apiServerUrl() throws IOException {
    return envValue("BERTH_API_SERVER");
  }

  private String envValue(String key) throws IOException {
    for (String line : Files.readAllLines(dir.resolve("env"))) {
      if (line.startsWith(key + "=")) {
        return line.substring(key.length() + 1);
      }
    }
    throw new IllegalStateException(dir.resolve("env") + " names no " + key);
  }

  /** Where conformance/build put etcd, kube-apiserver, kube-scheduler, kube-controller-manager and kwok. */
  Path binaries() throws IOException {
    for (String line : Files.readAllLines(dir.resolve("env"))) {
      if (line.startsWith("BERTH_K8S_BIN=")) {
        return Path.of(line.substring("BERTH_K8S_BIN=".length()));
      }
    }
    throw new IllegalStateException(dir.resolve("env") + " names no BERTH_K8S_BIN");
  }

  /**
   * The kubeconfig of one identity of conformance/up's token file: {@code admin}, {@code kube-scheduler},
   * {@code kube-controller-manager}, {@code kwok}, {@code berth-scheduler}, {@code berth-controller-manager}.
   */
  Path kubeconfig(String identity) {
    Path file = dir.resolve("kubeconfigs").resolve(identity + ".kubeconfig");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no identity " + identity + " in " + dir.resolve("kubeconfigs"));
    }
    return file;
  }

  /** A client as {@code identity}; the caller closes it. */
  KubernetesClient client(String identity) throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig(identity), StandardCharsets.UTF_8));
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** A client as the admin (system:masters); the caller closes it. */
  KubernetesClient admin() throws IOException {
    return client("admin");
  }

  /** The API server's audit log: every request of Berth's daemons and of kube-scheduler. */
  AuditLog audit() {
    return new AuditLog(dir.resolve("logs").resolve("audit.log"));
  }

  /** Runs conformance/down, which stops every process up started, by pid. */
  @Override
  public void close() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(scripts.resolve("down").toString(), "--dir", dir.toString()));
    Process down = new ProcessBuilder(command).inheritIO().start();
    if (!down.waitFor(2, TimeUnit.MINUTES)) {
      down.destroyForcibly();
      LOG.warn("conformance/down did not finish in 2 minutes; processes may be left: see {}/pids", dir);
    }
  }
}
