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
 * The scheduler's {@code /debug/*} on {@code --secure-port} (jar as a process, embedded cluster
 * with RBAC): no token is 401, a token whose user may not get the non-resource URL is 403 (also
 * for POST {@code /debug/simulate}, verb {@code post}), a user granted {@code /debug/*} reads the
 * explanation and simulates, and the SubjectAccessReviews name the full path.
 */
class ExplainSecureProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "target/berth-scheduler.jar"));

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true));

  @TempDir
  Path dir;

  private Process process;

  @AfterEach
  void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void debugPathsNeedAnAuthorizedToken() throws Exception {
    var admin = CLUSTER.client();
    admin.resource(new ClusterRoleBuilder().withNewMetadata().withName("debugger").endMetadata()
        .addNewRule().withNonResourceURLs("/debug/*").withVerbs("get", "post").endRule().build())
        .create();
    admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("debugger")
        .endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
        .withKind("ClusterRole").withName("debugger").endRoleRef().addNewSubject().withKind("User")
        .withName("debugger").endSubject().build()).create();
    admin.resource(new ClusterRoleBuilder().withNewMetadata().withName("metrics-only").endMetadata()
        .addNewRule().withNonResourceURLs("/metrics").withVerbs("get").endRule().build()).create();
    admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName("metrics-only")
        .endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
        .withKind("ClusterRole").withName("metrics-only").endRoleRef().addNewSubject()
        .withKind("User").withName("prometheus").endSubject().build()).create();
    String debugger = CLUSTER.cluster().authentication().issueToken("debugger", List.of());
    String prometheus = CLUSTER.cluster().authentication().issueToken("prometheus", List.of());

    Path log = dir.resolve("scheduler.log");
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx256m", "-jar", JAR.toString(),
        "--kubeconfig=" + CLUSTER.cluster().kubeconfig(), "--secure-port=0", "--leader-elect=false")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    process = builder.start();
    await().atMost(STARTUP).until(() -> SECURE.matcher(read(log)).find() || !process.isAlive());
    Matcher m = SECURE.matcher(read(log));
    assertThat(m.find()).as("secure port logged; output:\n%s", read(log)).isTrue();
    int port = Integer.parseInt(m.group(1));
    HttpClient https = trustingClient();
    await().atMost(STARTUP).until(() -> send(https, port, "GET", "/readyz", null, Optional.empty())
        .statusCode() == 200);
    CLUSTER.cluster().nodes().add(NodeSpec.node("secure-node").withCpu("1"));
    admin.pods().inNamespace("default").resource(SchedulerIT.pod("too-big", "2", "default-scheduler"))
        .create();
    String path = "/debug/explain/default/too-big";
    await().atMost(STARTUP).until(() -> send(https, port, "GET", path, null, Optional.of(debugger))
        .statusCode() == 200);

    HttpResponse<String> anonymous = send(https, port, "GET", path, null, Optional.empty());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).doesNotContain("secure-node");
    HttpResponse<String> forbidden = send(https, port, "GET", path, null, Optional.of(prometheus));
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains(path).doesNotContain("Insufficient");
    assertThat(send(https, port, "GET", "/debug/snapshot", null, Optional.of(prometheus))
        .statusCode()).isEqualTo(403);
    String simulate = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":"
        + "[{\"name\":\"c\",\"image\":\"busybox\"}]}}";
    assertThat(send(https, port, "POST", "/debug/simulate", simulate, Optional.of(prometheus))
        .statusCode()).isEqualTo(403);
    assertThat(send(https, port, "POST", "/debug/simulate", simulate, Optional.empty())
        .statusCode()).isEqualTo(401);

    HttpResponse<String> allowed = send(https, port, "GET", path, null, Optional.of(debugger));
    assertThat(allowed.body()).contains("\"secure-node\"").contains("Insufficient cpu");
    HttpResponse<String> simulated = send(https, port, "POST", "/debug/simulate", simulate,
        Optional.of(debugger));
    assertThat(simulated.statusCode()).as(simulated.body()).isEqualTo(200);
    assertThat(simulated.body()).contains("\"node\":\"secure-node\"");

    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.attributes().path().equals(path)))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("prometheus"))
        .anySatisfy(d -> assertThat(d.user().username()).isEqualTo("debugger"));
    assertThat(CLUSTER.cluster().authorizer().decisions(
        d -> d.attributes().path().equals("/debug/simulate")))
        .anySatisfy(d -> assertThat(d.attributes().verb()).isEqualTo("post"));
    process.destroy();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  private static HttpResponse<String> send(HttpClient https, int port, String method, String path,
      String body, Optional<String> token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://localhost:" + port
        + path)).timeout(Duration.ofSeconds(10)).method(method, body == null
        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
    return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** HTTPS trusting the daemon's self-signed certificate (generated at start). */
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
