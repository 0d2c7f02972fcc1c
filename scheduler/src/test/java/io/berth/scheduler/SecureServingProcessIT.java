package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler jar's secure port end to end against the embedded cluster with its RBAC authorizer on: the bearer
 * token is checked by a TokenReview and the request authorized by a SubjectAccessReview, both answered by the
 * embedded cluster from its tokens and RBAC objects. No token is 401, a token without rights 403, a token whose
 * user is bound to a ClusterRole granting {@code get} on the non-resource URL {@code /metrics} reads the
 * Prometheus text with upstream's metric names; {@code /healthz}, {@code /livez} and {@code /readyz} need no token.
 */
class SecureServingProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar", "target/berth-scheduler.jar"));

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .rbac(true));

  @TempDir
  Path dir;

  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void kill() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void metricsNeedAnAuthenticatedAndAuthorizedTokenWhileHealthPathsAreOpen() throws Exception {
    var admin = CLUSTER.client();
    admin.resource(new ClusterRoleBuilder().withNewMetadata().withName("metrics-reader").endMetadata()
        .addNewRule().withNonResourceURLs("/metrics").withVerbs("get").endRule().build()).create();
    admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("metrics-reader").endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole")
        .withName("metrics-reader").endRoleRef().addNewSubject().withKind("User").withName("prometheus")
        .endSubject().build()).create();
    String reader = CLUSTER.cluster().authentication().issueToken("prometheus", List.of());
    String nobody = CLUSTER.cluster().authentication().issueToken("nobody", List.of());

    Path log = dir.resolve("scheduler.log");
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-jar", JAR.toString(), "--kubeconfig=" + CLUSTER.cluster().kubeconfig(), "--secure-port=0",
        "--leader-elect=false").redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    started.add(builder.start());
    await().atMost(STARTUP).until(() -> SECURE.matcher(read(log)).find() || !started.get(0).isAlive());
    Matcher m = SECURE.matcher(read(log));
    assertThat(m.find()).as("secure port logged; output:\n%s", read(log)).isTrue();
    int port = Integer.parseInt(m.group(1));
    HttpClient https = trustingClient();

    await().atMost(STARTUP).until(() -> get(https, port, "/readyz", Optional.empty()).statusCode() == 200);
    CLUSTER.cluster().nodes().add(NodeSpec.node("secure-node"));
    admin.pods().inNamespace("default").resource(SchedulerIT.pod("secure-pod", "100m", "default-scheduler"))
        .create();
    await().atMost(STARTUP).until(() -> admin.pods().inNamespace("default").withName("secure-pod").get().getSpec()
        .getNodeName() != null);
    assertThat(get(https, port, "/healthz", Optional.empty()).statusCode()).isEqualTo(200);
    assertThat(get(https, port, "/livez", Optional.empty()).statusCode()).isEqualTo(200);

    HttpResponse<String> anonymous = get(https, port, "/metrics", Optional.empty());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).doesNotContain("scheduler_");
    HttpResponse<String> badToken = get(https, port, "/metrics", Optional.of("not-a-token"));
    assertThat(badToken.statusCode()).isEqualTo(401);
    HttpResponse<String> forbidden = get(https, port, "/metrics", Optional.of(nobody));
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains("/metrics").doesNotContain("scheduler_");
    HttpResponse<String> allowed = get(https, port, "/metrics", Optional.of(reader));
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(allowed.body()).contains("scheduler_pending_pods", "scheduler_schedule_attempts_total",
        "scheduler_scheduling_attempt_duration_seconds");

    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.attributes().path().equals("/metrics")))
        .as("the SubjectAccessReviews the embedded cluster answered")
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("prometheus"))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("nobody"));
    started.get(0).destroy();
    assertThat(started.get(0).waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(started.get(0).exitValue()).isZero();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  private static HttpResponse<String> get(HttpClient https, int port, String path, Optional<String> token)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
        .timeout(Duration.ofSeconds(10));
    token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
    return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** HTTPS trusting the daemon's self-signed certificate (generated at start, so unknown beforehand). */
  private static HttpClient trustingClient() throws Exception {
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {new X509ExtendedTrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] c, String a, Socket s) {}

      @Override
      public void checkServerTrusted(X509Certificate[] c, String a, Socket s) {}

      @Override
      public void checkClientTrusted(X509Certificate[] c, String a, SSLEngine e) {}

      @Override
      public void checkServerTrusted(X509Certificate[] c, String a, SSLEngine e) {}

      @Override
      public void checkClientTrusted(X509Certificate[] c, String a) {}

      @Override
      public void checkServerTrusted(X509Certificate[] c, String a) {}

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    return HttpClient.newBuilder().sslContext(tls).build();
  }
}
