package io.berth.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The simulator jar as users run it, with {@code scenarios/pending.yaml}: the dashboard's JSON API and event stream
 * over real HTTP, and the command-line contract (exit 0 when the expectations hold, 1 when not, 2 for an invalid
 * scenario or bad flags, with nothing started).
 */
class DashboardApiProcessIT {

  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final Duration WAIT = Duration.ofSeconds(180);

  private static JsonNode getJson(String url) throws Exception {
    HttpResponse<String> r = SimulatorProcess.get(url);
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    return JSON.readTree(r.body());
  }

  private static Optional<JsonNode> pending(JsonNode cluster, String name) {
    return StreamSupport.stream(cluster.path("pending").spliterator(), false)
        .filter(p -> p.path("name").asString().equals(name)).findFirst();
  }

  @Test
  void theJsonApiShowsNodesByZonePodsPendingReasonsQueueDepthsAndExplanations() throws Exception {
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", "scenarios/pending.yaml",
        "--dashboard-port", "0")) {
      String url = sim.dashboardUrl();
      assertThat(sim.kubeconfig()).isNotBlank();
      await().atMost(WAIT).untilAsserted(() -> {
        JsonNode c = getJson(url + "/api/cluster");
        assertThat(c.path("scenario").path("name").asString()).isEqualTo("pending");
        assertThat(c.path("zones")).extracting(z -> z.path("name").asString()).containsExactly("zone-a", "zone-b");
        assertThat(c.path("counts").path("nodes").asInt()).isEqualTo(3);
        assertThat(c.path("counts").path("running").asInt()).isEqualTo(2);
        assertThat(pending(c, "too-big")).get().satisfies(p -> {
          assertThat(p.path("queue").asString()).isEqualTo("unschedulable");
          assertThat(p.path("reason").asString()).startsWith("0/3 nodes are available:").contains("Insufficient cpu");
        });
        assertThat(pending(c, "wants-ssd")).get().satisfies(p -> assertThat(p.path("reason").asString())
            .contains("didn't match Pod's node affinity/selector"));
        assertThat(pending(c, "needs-gpu-node")).get().satisfies(p -> assertThat(p.path("reason").asString())
            .contains("untolerated taint"));
        assertThat(pending(c, "third-api")).get().satisfies(p -> assertThat(p.path("reason").asString())
            .contains("didn't match pod anti-affinity rules"));
        assertThat(pending(c, "gated")).get().satisfies(p -> {
          assertThat(p.path("queue").asString()).isEqualTo("gated");
          assertThat(p.path("reason").asString()).contains("example.com/quota-check");
        });
        assertThat(c.path("queue").path("gated").asInt()).isEqualTo(1);
        assertThat(c.path("queue").path("unschedulable").asInt()).isGreaterThanOrEqualTo(3);
        // the two api replicas run on two different nodes, each node box listing them with its requests
        List<String> apiNodes = new ArrayList<>();
        for (JsonNode z : c.path("zones")) {
          for (JsonNode n : z.path("nodes")) {
            assertThat(n.path("cpu").path("allocatable").asLong()).isPositive();
            for (JsonNode p : n.path("pods")) {
              if (p.path("owner").asString().equals("api")) {
                apiNodes.add(n.path("name").asString());
                assertThat(p.path("cpu").asLong()).isEqualTo(500);
              }
            }
            long requested = StreamSupport.stream(n.path("pods").spliterator(), false)
                .mapToLong(p -> p.path("cpu").asLong()).sum();
            assertThat(n.path("cpu").path("requested").asLong()).isEqualTo(requested);
          }
        }
        assertThat(apiNodes).hasSize(2).doesNotHaveDuplicates();
        assertThat(c.path("deployments")).singleElement().satisfies(d -> {
          assertThat(d.path("name").asString()).isEqualTo("api");
          assertThat(d.path("available").asInt()).isEqualTo(2);
          assertThat(d.path("complete").asBoolean()).isTrue();
        });
        assertThat(c.path("podGroups").path("installed").asBoolean()).isFalse();
      });

      JsonNode queue = getJson(url + "/api/queue");
      assertThat(queue.path("gated").asInt()).isEqualTo(1);
      assertThat(queue.path("pods")).anySatisfy(p -> {
        assertThat(p.path("name").asString()).isEqualTo("gated");
        assertThat(p.path("gatingPlugin").asString()).isEqualTo("SchedulingGates");
      });
      assertThat(queue.path("pods")).anySatisfy(p -> {
        assertThat(p.path("name").asString()).isEqualTo("too-big");
        assertThat(p.path("unschedulablePlugins")).extracting(JsonNode::asString).contains("NodeResourcesFit");
      });

      JsonNode explain = getJson(url + "/api/pods/apps/too-big/explain");
      assertThat(explain.path("queue").asString()).isEqualTo("unschedulable");
      assertThat(explain.path("attempts").asInt()).isPositive();
      assertThat(explain.path("condition").path("reason").asString()).isEqualTo("Unschedulable");
      assertThat(explain.path("reason").asString()).contains("Insufficient cpu");
      assertThat(explain.path("events")).anySatisfy(e ->
          assertThat(e.path("reason").asString()).isEqualTo("FailedScheduling"));
      // the scheduler's own record of the attempt: each node's Filter verdict
      JsonNode filter = explain.path("explain").path("latest").path("filter").path("nodes");
      assertThat(filter.path("small-a").path("plugin").asString()).isEqualTo("NodeResourcesFit");
      assertThat(filter.path("small-a").path("reason").asString()).isEqualTo("Insufficient cpu");
      assertThat(filter.path("small-b").path("plugin").asString()).isEqualTo("NodeResourcesFit");
      assertThat(filter.path("gpu-1").path("plugin").asString()).isEqualTo("TaintToleration");
      assertThat(explain.path("explain").path("summary").path("feasibleNodes").asInt()).isZero();
      HttpResponse<String> text = SimulatorProcess.get(url + "/api/pods/apps/too-big/explain?format=text");
      assertThat(text.statusCode()).isEqualTo(200);
      assertThat(text.body()).contains("small-a").contains("NodeResourcesFit").contains("TaintToleration");
      HttpResponse<String> missing = SimulatorProcess.get(url + "/api/pods/apps/no-such-pod/explain");
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(missing.body()).contains("pods \\\"no-such-pod\\\" not found");

      // the scenario's closing "Done" note comes once its expectations held: wait for it
      await().atMost(WAIT).untilAsserted(() -> assertThat(getJson(url + "/api/events?after=0").path("events"))
          .anySatisfy(e -> assertThat(e.path("reason").asString()).isEqualTo("Done")));
      JsonNode events = getJson(url + "/api/events?after=0");
      assertThat(events.path("events")).anySatisfy(e -> {
        assertThat(e.path("reason").asString()).isEqualTo("FailedScheduling");
        assertThat(e.path("object").asString()).startsWith("Pod apps/");
      });
      long last = events.path("last").asLong();
      assertThat(getJson(url + "/api/events?after=" + last).path("events")).isEmpty();

      // the live stream replays from Last-Event-ID and names each message by its number
      HttpResponse<InputStream> stream = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(url + "/api/events/stream")).header("Last-Event-ID", String.valueOf(last - 1)).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      assertThat(stream.headers().firstValue("Content-Type")).hasValueSatisfying(t ->
          assertThat(t).startsWith("text/event-stream"));
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
        String line;
        do {
          line = reader.readLine();
        } while (line != null && !line.startsWith("id: "));
        assertThat(line).isEqualTo("id: " + last);
        assertThat(reader.readLine()).isEqualTo("event: k8s");
        assertThat(reader.readLine()).startsWith("data: {\"seq\":" + last + ",");
      }

      assertThat(SimulatorProcess.get(url + "/").body()).contains("<title>Berth simulator</title>");
      assertThat(SimulatorProcess.get(url + "/app.js").headers().firstValue("Content-Type"))
          .hasValue("text/javascript; charset=utf-8");
    }
  }

  @Test
  void exitWhenDoneExitsZeroOnceTheExpectationsHold() throws Exception {
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", "scenarios/pending.yaml",
        "--dashboard-port", "0", "--exit-when-done")) {
      assertThat(sim.exitCode(WAIT)).as("exit code").hasValue(0);
      assertThat(sim.output()).contains("dashboard:  http://localhost:").contains("kubeconfig: ");
    }
  }

  @Test
  void anExpectationThatDoesNotHoldExitsOneSayingWhatWasFound() throws Exception {
    Path file = Files.createTempFile(Path.of("target"), "short-", ".yaml");
    Files.writeString(file, String.join("\n",
        "apiVersion: simulator.berth.io/v1alpha1",
        "kind: Scenario",
        "metadata: {name: short}",
        "spec:",
        "  nodes: [{name: only, cpu: '1'}]",
        "  expect:",
        "    timeout: 3s",
        "    pods: [{labels: {app: big}, phase: Running, count: 1}]",
        "---",
        "apiVersion: v1",
        "kind: Pod",
        "metadata: {name: big, labels: {app: big}}",
        "spec: {containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]}"));
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", file.toString(), "--dashboard-port", "0",
        "--exit-when-done")) {
      assertThat(sim.exitCode(WAIT)).as("exit code").hasValue(1);
      assertThat(sim.output()).contains("expected 1 pod in default with app=big Running, found 0");
    }
  }

  @Test
  void anInvalidScenarioExitsTwoNamingFileDocumentAndFieldBeforeStartingAnything() throws Exception {
    Path file = Files.createTempFile(Path.of("target"), "bad-", ".yaml");
    Files.writeString(file, String.join("\n",
        "apiVersion: v1",
        "kind: Namespace",
        "metadata: {name: fine}",
        "---",
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata: {name: web}",
        "spec:",
        "  replicas: -2",
        "  selector: {matchLabels: {app: web}}",
        "  template:",
        "    metadata: {labels: {app: web}}",
        "    spec: {containers: [{name: web, image: nginx}]}"));
    try (SimulatorProcess sim = SimulatorProcess.start("--scenario", file.toString(), "--dashboard-port", "0")) {
      assertThat(sim.exitCode(WAIT)).as("exit code").hasValue(2);
      assertThat(sim.output()).contains("invalid scenario " + file + ": document 2 (Deployment default/web): "
          + "spec.replicas: Invalid value: -2: must be greater than or equal to 0")
          .doesNotContain("dashboard:");
    }
  }

  @Test
  void exclusiveFlagsExitTwo() throws Exception {
    try (SimulatorProcess sim = SimulatorProcess.start("--keep-running", "--exit-when-done")) {
      assertThat(sim.exitCode(WAIT)).as("exit code").hasValue(2);
      assertThat(sim.output()).contains("--keep-running and --exit-when-done exclude each other");
    }
  }
}
