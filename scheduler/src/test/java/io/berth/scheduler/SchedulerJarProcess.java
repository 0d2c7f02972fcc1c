package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
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

/**
 * The scheduler jar run as a process for the secure-serving and debug ITs: started with the
 * embedded cluster's kubeconfig and the given flags, output in a log file, its bound ports read
 * from the log; plus HTTP(S) requests to it, trusting its self-signed certificate, with or without
 * a bearer token, and the RBAC grant of non-resource URLs to a user. {@link #close()} kills the
 * process if it still runs. Not thread-safe; one per test.
 */
final class SchedulerJarProcess implements AutoCloseable {
  static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");
  private static final Pattern PLAIN = Pattern.compile("listening on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "target/berth-scheduler.jar"));
  private static final HttpClient HTTP = client();

  private final Process process;
  private final Path log;

  private SchedulerJarProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code java -jar berth-scheduler.jar --kubeconfig=KUBECONFIG ARGS...}, output to {@code log}. */
  static SchedulerJarProcess start(Path log, Path kubeconfig, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", JAR.toString(), "--kubeconfig=" + kubeconfig));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("POD_IP");
    return new SchedulerJarProcess(builder.start(), log);
  }

  Process process() {
    return process;
  }

  /** The port of {@code --secure-port=0}, once logged. */
  int securePort() {
    return loggedPort(SECURE);
  }

  /** The port of {@code --port=0}, once logged. */
  int plainPort() {
    return loggedPort(PLAIN);
  }

  private int loggedPort(Pattern pattern) {
    await().atMost(STARTUP).until(() -> pattern.matcher(log()).find() || !process.isAlive());
    Matcher m = pattern.matcher(log());
    assertThat(m.find()).as("port logged; output:\n%s", log()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** The output so far. */
  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  /** SIGTERM, and the exit status within 30 s. */
  int terminate() throws InterruptedException {
    process.destroy();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exited on SIGTERM; output:\n%s", log())
        .isTrue();
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** {@code METHOD https://localhost:PORT/PATH} with an optional body and bearer token. */
  static HttpResponse<String> https(int port, String method, String path, String body,
      Optional<String> token) throws Exception {
    return send("https://localhost:" + port + path, method, body, token);
  }

  /** {@code METHOD http://localhost:PORT/PATH} with an optional body. */
  static HttpResponse<String> http(int port, String method, String path, String body)
      throws Exception {
    return send("http://localhost:" + port + path, method, body, Optional.empty());
  }

  private static HttpResponse<String> send(String url, String method, String body,
      Optional<String> token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(40)).method(method, body == null
            ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Binds a new ClusterRole {@code name} granting {@code verbs} on {@code urls} to user {@code user}. */
  static void grantNonResource(KubernetesClient admin, String name, String user, List<String> urls,
      String... verbs) {
    admin.resource(new ClusterRoleBuilder().withNewMetadata().withName(name).endMetadata()
        .addNewRule().withNonResourceURLs(urls).withVerbs(verbs).endRule().build()).create();
    admin.resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole")
        .withName(name).endRoleRef().addNewSubject().withKind("User").withName(user).endSubject()
        .build()).create();
  }

  /** HTTPS trusting the daemon's self-signed certificate (generated at start, so unknown beforehand). */
  private static HttpClient client() {
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {new TrustingManager()}, null);
      return HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Trusts any server certificate and skips host name checks. */
  private static final class TrustingManager extends X509ExtendedTrustManager {
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
  }
}
