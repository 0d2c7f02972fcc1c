package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DESIGN.md's command-line contract, checked on the runnable jar started as a process (failsafe runs this after
 * {@code package}): the flags, the endpoint, SIGTERM draining to exit 0, and exit 2 for bad flags and files.
 */
class ControllerManagerProcessIT {

  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.controllerManagerJar",
      "target/berth-controller-manager.jar"));

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> io.berth.embedded.EmbeddedCluster
      .builder().kubelet(io.berth.embedded.kubelet.KubeletSettings.defaults()
          .withStartupDelay(Duration.ofMillis(50)).withTerminationDelay(Duration.ofMillis(100))));

  @TempDir
  Path dir;

  private final List<RunningJar> started = new ArrayList<>();

  /** A started jar and its merged stdout/stderr, written to a file. Thread-safe: immutable. */
  private static final class RunningJar {
    final Process process;
    final Path log;

    RunningJar(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    String output() {
      try {
        return Files.readString(log, StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "<output unreadable: " + e + ">";
      }
    }

    /** The port the jar logged ("listening on :PORT"). */
    int awaitPort() {
      await().atMost(STARTUP).until(() -> port() > 0 || !process.isAlive());
      assertThat(port()).as("logged port; output:\n%s", output()).isPositive();
      return port();
    }

    private int port() {
      Matcher m = LISTENING.matcher(output());
      return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** Waits for the exit and the end of the output; returns the status. */
    int awaitExit(Duration timeout) throws InterruptedException {
      assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
          .as("exited within %s; output:\n%s", timeout, output()).isTrue();
      return process.exitValue();
    }
  }

  private RunningJar start(Map<String, String> env, String... args) throws IOException {
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "jar-", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
    builder.environment().putAll(env);
    RunningJar jar = new RunningJar(builder.start(), log);
    started.add(jar);
    return jar;
  }

  @AfterEach
  void killLeftovers() throws InterruptedException {
    for (RunningJar jar : started) {
      if (jar.process.isAlive()) {
        jar.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private String kubeconfig() {
    return CLUSTER.cluster().kubeconfig().toString();
  }

  @Test
  void servesHealthReadinessAndMetricsThenSigtermExitsZero() throws Exception {
    RunningJar jar = start(Map.of(), "--kubeconfig", kubeconfig(), "--port", "0", "--leader-elect=false");
    int port = jar.awaitPort();
    HttpResponse<String> healthz = Managers.get(port, "/healthz");
    assertThat(healthz.statusCode()).isEqualTo(200);
    assertThat(healthz.body()).isEqualTo("ok");
    await().atMost(STARTUP).until(() -> Managers.status(port, "/readyz") == 200);
    HttpResponse<String> metrics = Managers.get(port, "/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    // The built-in controllers' queues and sync counters, JVM and process metrics; no election, no leader gauge.
    assertThat(metrics.body()).contains("workqueue_depth{name=\"replicaset\"}")
        .contains("berth_controller_syncs_total{controller=\"replicaset\"")
        .contains("# TYPE jvm_memory_used_bytes gauge").contains("process_uptime_seconds")
        .doesNotContain("leader_election_master_status");

    jar.process.destroy(); // SIGTERM
    assertThat(jar.awaitExit(Duration.ofSeconds(30))).as(jar.output()).isZero();
    // The exit status is the contract; the last log lines may be cut off by the JVM halting.
    assertThat(jar.output()).contains("received SIGTERM");
  }

  @Test
  void withKubeconfigFromTheEnvironmentItLeadsThenReleasesTheLeaseOnSigterm() throws Exception {
    RunningJar jar = start(Map.of("KUBECONFIG", kubeconfig()), "--port=0");
    int port = jar.awaitPort();
    await().atMost(STARTUP).until(() -> Managers.status(port, "/readyz") == 200);
    assertThat(Managers.get(port, "/metrics").body())
        .contains("leader_election_master_status{name=\"berth-controller-manager\"} 1.0");
    Lease lease = CLUSTER.client().leases().inNamespace("kube-system").withName("berth-controller-manager").get();
    assertThat(lease.getSpec().getHolderIdentity()).matches(".+_[0-9a-f-]{36}");
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);

    jar.process.destroy();
    assertThat(jar.awaitExit(Duration.ofSeconds(30))).as(jar.output()).isZero();
    Lease released = CLUSTER.client().leases().inNamespace("kube-system").withName("berth-controller-manager").get();
    assertThat(released.getSpec().getHolderIdentity()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--bogus-flag          | --bogus-flag",
      "--controllers=nope    | nope",
      "--port=http           | --port",
      "--leader-elect=maybe  | --leader-elect",
      "--leader-elect-lease-duration=5s | --leader-elect-lease-duration",
      "--kubeconfig=/nonexistent/kubeconfig | --kubeconfig",
      "--tls-cert-file=/nonexistent | --tls-cert-file /nonexistent: no such file",
      "--secure-port=-1 | --secure-port",
      "--authorization-webhook-cache-authorized-ttl=soon | --authorization-webhook-cache-authorized-ttl"})
  void badFlagsExitTwoNamingTheFlag(String arg, String named) throws Exception {
    RunningJar jar = start(Map.of(), arg);
    assertThat(jar.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> jar.output().contains(named));
  }

  @Test
  void withSecurePortZeroOnlyHttpsServesWithDelegatedAuthAndTheCertDirHoldsTheCertificate() throws Exception {
    Path certDir = dir.resolve("certs");
    RunningJar jar = start(Map.of(), "--kubeconfig", kubeconfig(), "--secure-port=0", "--cert-dir",
        certDir.toString(), "--leader-elect=false");
    await().atMost(STARTUP).until(() -> SECURE.matcher(jar.output()).find() || !jar.process.isAlive());
    Matcher m = SECURE.matcher(jar.output());
    assertThat(m.find()).as("logged secure port; output:\n%s", jar.output()).isTrue();
    int port = Integer.parseInt(m.group(1));
    X509Certificate cert;
    try (var in = Files.newInputStream(certDir.resolve("berth-controller-manager.crt"))) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", cert);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    HttpClient https = HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
    java.util.function.Function<String, HttpResponse<String>> get = path -> {
      try {
        return https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    };
    HttpResponse<String> livez = get.apply("/livez");
    assertThat(livez.statusCode()).isEqualTo(200);
    assertThat(livez.body()).isEqualTo("ok");
    await().atMost(STARTUP).until(() -> get.apply("/readyz").statusCode() == 200);
    HttpResponse<String> metrics = get.apply("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(401);
    assertThat(metrics.body()).doesNotContain("jvm_memory_used_bytes");
    assertThat(jar.output()).as("the plain port is not served").doesNotContain("listening on :");

    jar.process.destroy(); // SIGTERM
    assertThat(jar.awaitExit(Duration.ofSeconds(30))).as(jar.output()).isZero();
  }

  @Test
  void anInvalidKubeconfigFileExitsTwoNamingTheField() throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters: []\n");
    RunningJar jar = start(Map.of(), "--kubeconfig", file.toString());
    assertThat(jar.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> jar.output().contains("current-context"));
    assertThat(jar.output()).contains("--kubeconfig");
  }

  @Test
  void theJarRollsADeploymentOutAndBackThroughBothControllers() throws Exception {
    CLUSTER.cluster().nodes().add(io.berth.embedded.NodeSpec.node("process-node"));
    var client = CLUSTER.client();
    client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
        .withName("process").endMetadata().build()).create();
    var informers = new io.berth.informer.SharedInformerFactory(client);
    try (TestBinder binder = new TestBinder(client, informers)) {
      informers.start();
      RunningJar jar = start(Map.of(), "--kubeconfig", kubeconfig(), "--port", "0", "--leader-elect=false",
          "--concurrent-deployment-syncs=2", "--concurrent-replicaset-syncs=3");
      int port = jar.awaitPort();
      await().atMost(STARTUP).until(() -> Managers.status(port, "/readyz") == 200);
      client.apps().deployments().inNamespace("process").resource(new io.fabric8.kubernetes.api.model.apps
          .DeploymentBuilder().withNewMetadata().withName("web").endMetadata().withNewSpec().withReplicas(3)
          .withNewSelector().addToMatchLabels("app", "web").endSelector().withNewTemplate().withNewMetadata()
          .addToLabels("app", "web").endMetadata().withNewSpec().addNewContainer().withName("main")
          .withImage("nginx:1.27").endContainer().endSpec().endTemplate().endSpec().build()).create();
      await().atMost(STARTUP).untilAsserted(() -> {
        var d = client.apps().deployments().inNamespace("process").withName("web").get();
        assertThat(d.getStatus()).isNotNull();
        assertThat(d.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(d.getStatus().getUpdatedReplicas()).isEqualTo(3);
      });
      assertThat(client.pods().inNamespace("process").list().getItems()).hasSize(3)
          .allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Running"));
      assertThat(Managers.get(port, "/metrics").body())
          .contains("berth_controller_syncs_total{controller=\"deployment\",result=\"success\"}");
      jar.process.destroy();
      assertThat(jar.awaitExit(Duration.ofSeconds(30))).as(jar.output()).isZero();
    } finally {
      informers.shutdown();
    }
  }
}
