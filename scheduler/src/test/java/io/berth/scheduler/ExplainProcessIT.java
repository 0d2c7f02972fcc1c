package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.fault.RequestRecord;
import io.berth.scheduler.explain.ResultAnnotations;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /debug/explain}, {@code /debug/simulate}, {@code /debug/snapshot} and
 * {@code --record-results-annotations} on the scheduler jar run as a process against the embedded
 * cluster: a pod rejected by taints on two nodes and by cpu on three shows exactly that per node;
 * once it fits, its weighted scores sum to the total that picked its node; simulating writes
 * nothing to the API server.
 */
class ExplainProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "target/berth-scheduler.jar"));
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String NS = "explain";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(EmbeddedCluster::builder);

  @TempDir
  Path dir;

  private Process process;
  private Path log;

  @AfterEach
  void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private int start(String... args) throws IOException {
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString(),
        "--kubeconfig=" + CLUSTER.cluster().kubeconfig()));
    command.addAll(List.of(args));
    log = dir.resolve("scheduler.log");
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    b.environment().remove("KUBECONFIG");
    process = b.start();
    await().atMost(STARTUP).until(() -> LISTENING.matcher(output()).find() || !process.isAlive());
    Matcher m = LISTENING.matcher(output());
    assertThat(m.find()).as("logged port; output:\n%s", output()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(int port, String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Pod pod(String name, String cpu) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().withSchedulerName("berth").addNewContainer().withName("c")
        .withImage("busybox").withNewResources().addToRequests("cpu", new Quantity(cpu))
        .addToRequests("memory", new Quantity("100Mi")).endResources().endContainer().endSpec()
        .build();
  }

  @Test
  void explainsRejectionsPerNodeScoresAndSimulatesWithoutWriting() throws Exception {
    KubernetesClient client = CLUSTER.client();
    for (int i = 1; i <= 2; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("tainted-" + i).withCpu("16")
          .withTaint("dedicated", "gpu", "NoSchedule"));
    }
    for (int i = 1; i <= 3; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("small-" + i).withCpu("1"));
    }
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
        .build()).create();
    int port = start("--port=0", "--leader-elect=false", "--scheduler-name=berth",
        "--record-results-annotations");
    await().atMost(STARTUP).until(() -> get(port, "/readyz").statusCode() == 200);
    client.pods().inNamespace(NS).resource(pod("big", "1500m")).create();

    // pending: exactly two taint rejections and three cpu rejections, each on its node
    JsonNode pending = await().atMost(STARTUP).until(() -> explain(port, "big"),
        n -> n != null && n.path("latest").path("outcome").asString().equals("UNSCHEDULABLE"));
    JsonNode nodes = pending.path("latest").path("filter").path("nodes");
    assertThat(List.copyOf(nodes.propertyNames())).containsExactlyInAnyOrder("tainted-1", "tainted-2",
        "small-1", "small-2", "small-3");
    for (String n : List.of("tainted-1", "tainted-2")) {
      assertThat(nodes.path(n).path("plugin").asString()).as(n).isEqualTo("TaintToleration");
      assertThat(nodes.path(n).path("reason").asString()).as(n)
          .isEqualTo("node(s) had untolerated taint {dedicated: gpu}");
    }
    for (String n : List.of("small-1", "small-2", "small-3")) {
      assertThat(nodes.path(n).path("plugin").asString()).as(n).isEqualTo("NodeResourcesFit");
      assertThat(nodes.path(n).path("reason").asString()).as(n).isEqualTo("Insufficient cpu");
      assertThat(nodes.path(n).path("lacks").asString()).as(n).isEqualTo("needs 500m cpu more");
    }
    JsonNode summary = pending.path("summary");
    assertThat(summary.path("rejections").path("NodeResourcesFit: Insufficient cpu").asInt())
        .isEqualTo(3);
    assertThat(summary.path("rejections")
        .path("TaintToleration: node(s) had untolerated taint {dedicated: gpu}").asInt())
        .isEqualTo(2);
    assertThat(summary.path("nearest").get(0).path("lacks").asString())
        .isEqualTo("needs 500m cpu more");
    assertThat(pending.path("latest").path("message").asString()).startsWith("0/5 nodes are available");
    await().atMost(STARTUP).untilAsserted(() -> assertThat(explain(port, "big").path("queue")
        .path("queue").asString()).isIn("unschedulable", "backoff"));
    String text = get(port, "/debug/explain/" + NS + "/big?format=text").body();
    assertThat(text).containsPattern("3\\s+NodeResourcesFit: Insufficient cpu")
        .containsPattern("small-1\\s+rejected\\s+NodeResourcesFit\\s+Insufficient cpu");
    assertThat(get(port, "/debug/explain/" + NS + "/nope").statusCode()).isEqualTo(404);
    assertThat(get(port, "/debug/explain/" + NS).statusCode()).isEqualTo(400);

    // simulate: where a small pod would land, without any write
    Map<String, String> before = versions(client);
    Instant mark = Instant.now();
    HttpResponse<String> simulated = post(port, "/debug/simulate", """
        apiVersion: v1
        kind: Pod
        metadata: {name: what-if, namespace: explain}
        spec:
          schedulerName: berth
          containers:
          - name: c
            image: busybox
            resources: {requests: {cpu: 500m}}
        """);
    assertThat(simulated.statusCode()).as(simulated.body()).isEqualTo(200);
    JsonNode sim = JSON.readTree(simulated.body()).path("results").get(0);
    assertThat(sim.path("outcome").asString()).isEqualTo("SCHEDULED");
    assertThat(sim.path("node").asString()).startsWith("small-");
    assertThat(sim.path("attempt").path("filter").path("nodes").path("tainted-1").path("plugin")
        .asString()).isEqualTo("TaintToleration");
    HttpResponse<String> simulatedBig = post(port, "/debug/simulate?format=text",
        JSON.writeValueAsString(pod("big-copy", "1500m")));
    assertThat(simulatedBig.body()).contains("UNSCHEDULABLE").contains("needs 500m cpu more");
    assertThat(post(port, "/debug/simulate", "{\"kind\":\"Node\"}").statusCode()).isEqualTo(400);
    List<RequestRecord> writes = CLUSTER.cluster().requestLog().entries(r -> r.time().isAfter(mark)
        && !List.of("get", "list", "watch").contains(r.verb()));
    assertThat(writes).as("requests that write, made while simulating").isEmpty();
    assertThat(client.pods().inNamespace(NS).withName("what-if").get()).isNull();
    assertThat(versions(client)).isEqualTo(before);

    // the snapshot: every node with what it has, the pending pod in its queue, no drift
    JsonNode snapshot = JSON.readTree(get(port, "/debug/snapshot").body());
    assertThat(snapshot.path("nodes")).hasSize(5);
    assertThat(snapshot.path("nodes").get(0).path("allocatable").path("cpu").asString())
        .isEqualTo("1");
    assertThat(snapshot.path("comparison").path("missingNodes")).isEmpty();
    assertThat(snapshot.path("comparison").path("missingPods")).isEmpty();
    assertThat(snapshot.path("comparison").path("redundantPods")).isEmpty();
    String queued = snapshot.path("queues").toString();
    assertThat(queued).contains(NS + "/big");

    // once a node fits, the chosen node's weighted scores sum to the highest total
    for (int i = 1; i <= 2; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("large-" + i).withCpu(i == 1 ? "4" : "8"));
    }
    JsonNode bigScheduled = await().atMost(STARTUP).until(() -> explain(port, "big"),
        n -> n != null && n.path("latest").path("outcome").asString().equals("SCHEDULED"));
    assertThat(bigScheduled.path("history").size()).as("the earlier unschedulable attempts")
        .isPositive();
    assertThat(bigScheduled.path("history").get(0).path("outcome").asString())
        .isEqualTo("UNSCHEDULABLE");
    await().atMost(STARTUP).until(() -> client.pods().inNamespace(NS).withName("big").get()
        .getSpec().getNodeName() != null);
    client.pods().inNamespace(NS).resource(pod("fits", "1500m")).create();
    JsonNode scheduled = await().atMost(STARTUP).until(() -> explain(port, "fits"),
        n -> n != null && n.path("latest").path("outcome").asString().equals("SCHEDULED"));
    String chosen = scheduled.path("latest").path("selectedNode").asString();
    assertThat(client.pods().inNamespace(NS).withName("fits").get().getSpec().getNodeName())
        .isEqualTo(chosen);
    JsonNode rows = scheduled.path("latest").path("scores").path("nodes");
    assertThat(List.copyOf(rows.propertyNames())).containsExactlyInAnyOrder("large-1", "large-2");
    long best = Long.MIN_VALUE;
    for (String n : List.copyOf(rows.propertyNames())) {
      long sum = 0;
      for (JsonNode cell : rows.path(n).path("plugins")) {
        assertThat(cell.path("weighted").asLong())
            .isEqualTo(cell.path("normalized").asLong() * cell.path("weight").asLong());
        sum += cell.path("weighted").asLong();
      }
      assertThat(rows.path(n).path("total").asLong()).as(n).isEqualTo(sum);
      best = Math.max(best, sum);
    }
    assertThat(rows.path(chosen).path("total").asLong()).isEqualTo(best);
    assertThat(scheduled.path("latest").path("bind").get(0).path("plugin").asString())
        .isEqualTo("DefaultBinder");

    // kube-scheduler-simulator's annotations
    await().atMost(STARTUP).untilAsserted(() -> {
      Map<String, String> annotations = client.pods().inNamespace(NS).withName("fits").get()
          .getMetadata().getAnnotations();
      assertThat(annotations).containsEntry(ResultAnnotations.SELECTED_NODE, chosen)
          .containsEntry(ResultAnnotations.BIND, "{\"DefaultBinder\":\"success\"}");
      JsonNode filter = JSON.readTree(annotations.get(ResultAnnotations.FILTER));
      assertThat(filter.path(chosen).path("NodeResourcesFit").asString()).isEqualTo("passed");
      assertThat(filter.path("tainted-1").path("TaintToleration").asString())
          .isEqualTo("node(s) had untolerated taint {dedicated: gpu}");
      JsonNode fin = JSON.readTree(annotations.get(ResultAnnotations.FINAL_SCORE));
      long total = 0;
      for (JsonNode v : fin.path(chosen)) {
        total += Long.parseLong(v.asString());
      }
      assertThat(total).isEqualTo(rows.path(chosen).path("total").asLong());
    });
    // the result history: the pending attempts first, the one that bound last
    await().atMost(STARTUP).untilAsserted(() -> {
      Map<String, String> annotations = client.pods().inNamespace(NS).withName("big").get()
          .getMetadata().getAnnotations();
      JsonNode history = JSON.readTree(annotations.get(ResultAnnotations.HISTORY));
      assertThat(history.size()).isGreaterThanOrEqualTo(2);
      assertThat(history.get(0).path(ResultAnnotations.SELECTED_NODE).asString()).isEmpty();
      assertThat(history.get(0).path(ResultAnnotations.FILTER).asString())
          .contains("Insufficient cpu");
      assertThat(history.get(history.size() - 1).path(ResultAnnotations.SELECTED_NODE)
          .asString()).isEqualTo(annotations.get(ResultAnnotations.SELECTED_NODE)).isNotEmpty();
      assertThat(history.get(history.size() - 1).has(ResultAnnotations.HISTORY)).isFalse();
    });
    process.destroy();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
  }

  private static JsonNode explain(int port, String pod) throws Exception {
    HttpResponse<String> r = get(port, "/debug/explain/" + NS + "/" + pod);
    return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
  }

  private static Map<String, String> versions(KubernetesClient client) {
    Map<String, String> out = new HashMap<>();
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(client.pods().inAnyNamespace().list().getItems());
    all.addAll(client.nodes().list().getItems());
    for (HasMetadata o : all) {
      out.put(o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName(),
          o.getMetadata().getResourceVersion());
    }
    return out;
  }
}
