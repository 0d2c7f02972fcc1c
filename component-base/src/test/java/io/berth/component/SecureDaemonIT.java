package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared lifecycle with {@code --secure-port}: HTTPS with the same routes (and the ones a workload registers),
 * the plain port off unless asked for, the bound secure port reported, stopped on shutdown; an unusable
 * certificate is a configuration error before anything starts.
 */
class SecureDaemonIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  @TempDir
  Path dir;

  /** Registers {@code /debug/workload} while building, as the scheduler will register {@code /debug/explain}. */
  private static final class RoutedWorkload implements DaemonWorkload {
    @Override
    public void build(DaemonContext context) {
      context.informers().informerFor(ConfigMap.class, "kube-system");
      context.routes().get("/debug/workload", uri -> EndpointRoutes.Response.text(200, "built"));
    }

    @Override
    public void startWork() {
    }

    @Override
    public boolean stopWork(Duration timeout) {
      return true;
    }
  }

  private DaemonSettings settings(boolean plain, SecureServingSettings secure) {
    return new DaemonSettings("test-daemon", 0, new ClientSettings(Optional.of(CLUSTER.cluster().kubeconfig()), 100,
        200, "test-daemon"), new LeaderElectionSettings(false, Duration.ofSeconds(3), Duration.ofSeconds(2),
        Duration.ofMillis(250), "kube-system", "unused"), plain, Optional.of(secure));
  }

  private static Daemon daemon(DaemonSettings settings, Exiter exiter) {
    return Daemon.builder(settings, new RoutedWorkload()).exiter(exiter).installShutdownHook(false)
        .drainTimeout(Duration.ofSeconds(5)).build();
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).version(HttpClient.Version.HTTP_1_1)
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void secureOnlyServesHttpsWithTheSameRoutesAndNoPlainPort() throws Exception {
    Path certDir = dir.resolve("certs");
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(false, SecureServingSettings.defaults(0).withCertDir(certDir)), exiter);
    try {
      daemon.start();
      assertThatThrownBy(daemon::port).isInstanceOf(IllegalStateException.class);
      int port = daemon.securePort();
      assertThat(port).isPositive();
      X509Certificate cert = PemFiles.certificates(certDir.resolve("test-daemon.crt"), "cert").get(0);
      HttpClient https = TestCertificates.trusting(cert);
      String base = "https://127.0.0.1:" + port;
      assertThat(get(https, base + "/livez").statusCode()).isEqualTo(200);
      assertThat(get(https, base + "/healthz").body()).isEqualTo("ok");
      await().atMost(WAIT).until(() -> get(https, base + "/readyz").statusCode() == 200);
      assertThat(get(https, base + "/metrics").statusCode()).isEqualTo(401);
      assertThat(get(https, base + "/debug/workload").statusCode()).isEqualTo(401);
      assertThat(daemon.routes().paths()).containsExactly("/debug/workload", "/healthz", "/livez", "/metrics",
          "/readyz");
      daemon.shutdown();
      assertThat(exiter.statuses()).containsExactly(0);
      assertThatThrownBy(() -> get(https, base + "/livez")).isInstanceOf(ConnectException.class);
    } finally {
      daemon.shutdown();
    }
  }

  @Test
  void bothEndpointsServeTheSameContentWhenBothPortsAreGiven() throws Exception {
    Daemon daemon = daemon(settings(true, SecureServingSettings.defaults(0).withCertDir(dir)),
        new RecordingExiter());
    try {
      daemon.start();
      HttpClient plain = HttpClient.newHttpClient();
      assertThat(get(plain, "http://127.0.0.1:" + daemon.port() + "/debug/workload").body()).isEqualTo("built");
      assertThat(get(plain, "http://127.0.0.1:" + daemon.port() + "/livez").body()).isEqualTo("ok");
      X509Certificate cert = PemFiles.certificates(dir.resolve("test-daemon.crt"), "cert").get(0);
      assertThat(get(TestCertificates.trusting(cert), "https://localhost:" + daemon.securePort() + "/livez").body())
          .isEqualTo("ok");
    } finally {
      daemon.shutdown();
    }
  }

  @Test
  void anUnusableCertificateIsAConfigurationErrorBeforeAnythingStarts() throws Exception {
    SecureServingSettings secure = new SecureServingSettings(0, "0.0.0.0", Optional.of(Path.of("/nonexistent.crt")),
        Optional.of(Path.of("/nonexistent.key")), Optional.empty(), Optional.empty(), Optional.empty(),
        SecureServingSettings.DEFAULT_ALWAYS_ALLOW_PATHS, Duration.ZERO, Duration.ZERO, Duration.ZERO);
    RecordingExiter exiter = new RecordingExiter();
    Daemon daemon = daemon(settings(true, secure), exiter);
    assertThatThrownBy(daemon::start).isInstanceOf(ConfigurationException.class)
        .hasMessage("--tls-cert-file /nonexistent.crt: no such file");
    assertThat(daemon.awaitTermination()).isEqualTo(2);
    assertThatThrownBy(daemon::port).isInstanceOf(IllegalStateException.class);
    assertThat(exiter.statuses()).isEmpty();
  }
}
