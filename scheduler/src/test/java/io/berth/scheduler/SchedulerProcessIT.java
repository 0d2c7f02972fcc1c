package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
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
import java.util.Map;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DESIGN.md's command-line contract on the runnable scheduler jar started as a process (failsafe
 * runs this after {@code package}): scheduling through the jar, the endpoint, the Lease, SIGTERM
 * exiting 0, and exit 2 naming the flag or field for bad flags and config files.
 */
class SchedulerProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Pattern SECURE = Pattern.compile("secure serving on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "target/berth-scheduler.jar"));
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(EmbeddedCluster::builder);

  @TempDir
  Path dir;

  private final List<Process> started = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();

  private int start(Map<String, String> env, String... args) throws IOException {
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "jar-", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
    builder.environment().putAll(env);
    started.add(builder.start());
    logs.add(log);
    return started.size() - 1;
  }

  private String output(int i) {
    try {
      return Files.readString(logs.get(i), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  private int awaitPort(int i) {
    await().atMost(STARTUP).until(() -> LISTENING.matcher(output(i)).find() || !started.get(i).isAlive());
    Matcher m = LISTENING.matcher(output(i));
    assertThat(m.find()).as("logged port; output:\n%s", output(i)).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private int awaitExit(int i, Duration timeout) throws InterruptedException {
    assertThat(started.get(i).waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        .as("exited; output:\n%s", output(i)).isTrue();
    return started.get(i).exitValue();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @AfterEach
  void killLeftovers() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void theJarSchedulesPodsLeadsAndExitsZeroOnSigterm() throws Exception {
    var client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("jar-node-1"));
    CLUSTER.cluster().nodes().add(NodeSpec.node("jar-node-2"));
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("jar").endMetadata()
        .build()).create();
    int jar = start(Map.of("KUBECONFIG", CLUSTER.cluster().kubeconfig().toString()), "--port=0",
        "--scheduler-name=berth");
    int port = awaitPort(jar);
    assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
    await().atMost(STARTUP).until(() -> get(port, "/readyz").statusCode() == 200);
    for (int i = 0; i < 5; i++) {
      client.pods().inNamespace("jar").resource(SchedulerIT.pod("p" + i, "100m", "berth")).create();
    }
    client.pods().inNamespace("jar").resource(SchedulerIT.pod("other", "100m", "default-scheduler"))
        .create();
    await().atMost(STARTUP).until(() -> client.pods().inNamespace("jar").list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() != null).count() == 5);
    assertThat(client.pods().inNamespace("jar").withName("other").get().getSpec().getNodeName())
        .isNull();
    Lease lease = client.leases().inNamespace("kube-system").withName("berth-scheduler").get();
    assertThat(lease.getSpec().getHolderIdentity()).isNotEmpty();
    String metrics = get(port, "/metrics").body();
    assertThat(metrics)
        .contains("scheduler_schedule_attempts_total{profile=\"berth\",result=\"scheduled\"} 5.0")
        .contains("leader_election_master_status{name=\"berth-scheduler\"} 1.0")
        .contains("scheduler_pending_pods{queue=\"unschedulable\"}");
    started.get(jar).destroy();
    assertThat(awaitExit(jar, Duration.ofSeconds(30))).isZero();
  }

  @Test
  void aConfigFileWithTwoProfilesIsHonoured() throws Exception {
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "leaderElection:",
        "  leaderElect: false",
        "profiles:",
        "- schedulerName: one",
        "- schedulerName: two",
        "  plugins:",
        "    score:",
        "      disabled:",
        "      - name: '*'"));
    int jar = start(Map.of(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(),
        "--config", config.toString(), "--port=0");
    int port = awaitPort(jar);
    await().atMost(STARTUP).until(() -> get(port, "/readyz").statusCode() == 200);
    assertThat(get(port, "/metrics").body()).doesNotContain("leader_election_master_status");
    started.get(jar).destroy();
    assertThat(awaitExit(jar, Duration.ofSeconds(30))).isZero();
  }

  @Test
  void withBothPortsGivenPlainAndSecureServeTheSameHealthAndOnlyPlainMetricsAreOpen() throws Exception {
    int jar = start(Map.of(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(), "--port=0",
        "--secure-port=0", "--leader-elect=false");
    int port = awaitPort(jar);
    await().atMost(STARTUP).until(() -> SECURE.matcher(output(jar)).find());
    Matcher m = SECURE.matcher(output(jar));
    assertThat(m.find()).isTrue();
    int securePort = Integer.parseInt(m.group(1));
    assertThat(securePort).isNotEqualTo(port);
    HttpClient trustAll = HttpClient.newBuilder().sslContext(trustAll())
        .version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> livez = trustAll.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:"
        + securePort + "/livez")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(livez.statusCode()).isEqualTo(200);
    assertThat(get(port, "/livez").body()).isEqualTo("ok");
    assertThat(trustAll.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + securePort
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    assertThat(get(port, "/metrics").statusCode()).isEqualTo(200);
    started.get(jar).destroy();
    assertThat(awaitExit(jar, Duration.ofSeconds(30))).isZero();
  }

  /** Trusts any server certificate (the jar's is generated in memory at start); tests only. */
  private static SSLContext trustAll() throws Exception {
    X509ExtendedTrustManager any = new X509ExtendedTrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    };
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {any}, null);
    return context;
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "percentageOfNodesToScore: 120 | percentageOfNodesToScore",
      "profiles: [{schedulerName: a, plugins: {filter: {enabled: [{name: Nope}]}}}] | Nope",
      "podMaxBackoffSeconds: 0.5x | podMaxBackoffSeconds",
      "profile: [] | profile"})
  void anInvalidConfigExitsTwoNamingTheField(String line, String named) throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "apiVersion: kubescheduler.config.k8s.io/v1\n"
        + "kind: KubeSchedulerConfiguration\n" + line + "\n");
    int jar = start(Map.of(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(),
        "--config", config.toString());
    assertThat(awaitExit(jar, Duration.ofSeconds(30))).isEqualTo(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> output(jar).contains(named));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"--bogus | --bogus", "--port=x | --port",
      "--tls-cert-file=/nonexistent | --tls-cert-file /nonexistent: no such file",
      "--bind-address=nowhere | --bind-address must be an IP address",
      "--leader-elect=maybe | --leader-elect",
      "--feature-gates=SchedulerAsyncPreemtion=true | unrecognized feature gate:"
          + " SchedulerAsyncPreemtion",
      "--feature-gates=SchedulerQueueingHints=false | cannot set feature gate"
          + " SchedulerQueueingHints to false, feature is locked to true"})
  void badFlagsExitTwoNamingTheFlag(String arg, String named) throws Exception {
    int jar = start(Map.of(), arg);
    assertThat(awaitExit(jar, Duration.ofSeconds(30))).isEqualTo(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> output(jar).contains(named));
  }
}
