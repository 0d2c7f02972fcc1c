package io.berth.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a run of the scheduler jar (started as a process with {@code --record}) against the
 * embedded cluster, then replays the recording with berth-replay: through the default configuration
 * it places every pod where the live run did; through MostAllocated it uses fewer nodes; twice it
 * prints the same report; and bad input exits 2 naming the file. The live scenario is built so that
 * no two nodes ever score the same (the live scheduler's tie-break is random, so a tie could place a
 * pod differently), and the test checks that: replays with different tie-break seeds agree.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RecordReplayProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "../scheduler/target/berth-scheduler.jar"));
  private static final String IMAGE = "registry.example/app:1";
  private static final String NS = "rec";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(EmbeddedCluster::builder);

  @TempDir
  static Path dir;

  static Path recording;
  static Path defaultConfig;
  static Path mostAllocated;
  /** pod name -> node the live scheduler bound it to (absent: pending). */
  static final Map<String, String> live = new LinkedHashMap<>();

  @BeforeAll
  static void recordALiveRun() throws Exception {
    assertThat(JAR).as("the scheduler's runnable jar (built by package)").isRegularFile();
    KubernetesClient client = CLUSTER.client();
    // capacities chosen so that no two nodes ever score the same under LeastAllocated or
    // MostAllocated (+ BalancedAllocation) for these pods
    String[][] shapes = {{"9", "24Gi"}, {"7", "24Gi"}, {"12", "8Gi"}, {"5", "16Gi"}};
    for (int i = 0; i < shapes.length; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("node-" + (i + 1)).withCpu(shapes[i][0])
          .withMemory(shapes[i][1]));
    }
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
        .build()).create();
    recording = dir.resolve("stream.jsonl.gz");
    Path log = dir.resolve("scheduler.log");
    Process jar = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", JAR.toString(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(),
        "--leader-elect=false", "--port=0", "--record", recording.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await().atMost(STARTUP).until(() -> LISTENING.matcher(read(log)).find() || !jar.isAlive());
      Matcher m = LISTENING.matcher(read(log));
      assertThat(m.find()).as("port logged; output:\n%s", read(log)).isTrue();
      int port = Integer.parseInt(m.group(1));
      await().atMost(STARTUP).until(() -> status(port, "/readyz") == 200);
      // one at a time, each bound before the next comes, so the order is the same in the replay
      for (int i = 0; i < 6; i++) {
        createAndAwait(client, pod("small-" + i, "2", "1Gi"), true);
      }
      createAndAwait(client, pod("big", "10", "1Gi"), false);
      // the scheduler has seen (and recorded) "big" once it marked it unschedulable; only then
      // does its wait for the next node start, so the recorded wait is at least the sleep
      await().atMost(STARTUP).until(() -> condition(client, "big") != null);
      Thread.sleep(300); // some simulated latency for "big": it waits for the next node
      CLUSTER.cluster().nodes().add(NodeSpec.node("node-5").withCpu("16").withMemory("32Gi"));
      await().atMost(STARTUP).until(() -> nodeOf(client, "big") != null);
      createAndAwait(client, pod("huge", "64", "1Gi"), false);
      await().atMost(STARTUP).until(() -> condition(client, "huge") != null);
      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://localhost:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics).contains("berth_scheduler_record_events_total{result=\"dropped\"} 0.0");
    } finally {
      jar.destroy();
      assertThat(jar.waitFor(30, TimeUnit.SECONDS)).as("exited; output:\n%s", read(log)).isTrue();
    }
    assertThat(jar.exitValue()).as("output:\n%s", read(log)).isZero();
    for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
      live.put(p.getMetadata().getName(), p.getSpec().getNodeName());
    }
    assertThat(live).hasSize(8).containsEntry("huge", null);
    defaultConfig = dir.resolve("default.yaml");
    Files.writeString(defaultConfig, "apiVersion: kubescheduler.config.k8s.io/v1\n"
        + "kind: KubeSchedulerConfiguration\n");
    mostAllocated = dir.resolve("most-allocated.yaml");
    Files.writeString(mostAllocated, String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "profiles:",
        "- schedulerName: default-scheduler",
        "  pluginConfig:",
        "  - name: NodeResourcesFit",
        "    args:",
        "      scoringStrategy:",
        "        type: MostAllocated",
        "        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]", ""));
  }

  @AfterAll
  static void cleanUp() {
    live.clear();
  }

  @Test
  @Order(1)
  void theDefaultConfigPlacesEveryPodWhereTheLiveRunDidAndMostAllocatedUsesFewerNodes() {
    Replay r = replay("--from", recording.toString(), "--config", defaultConfig.toString(),
        "--config", mostAllocated.toString(), "--json");
    assertThat(r.status()).as("stderr: %s", r.err()).isZero();
    List<Map<String, Object>> configs = list(r.json().get("configs"));
    assertThat(configs).hasSize(2);

    Map<String, Object> dflt = configs.get(0);
    Map<String, String> replayed = placements(dflt, "replayed");
    assertThat(replayed).as("the default config replays the live placements").isEqualTo(live);
    assertThat(placements(dflt, "recorded")).isEqualTo(live);
    assertThat(list(dflt.get("differsFromRecording"))).isEmpty();
    // the small pods spread over the four first nodes, as LeastAllocated does
    assertThat(replayed.entrySet().stream().filter(e -> e.getKey().startsWith("small"))
        .map(Map.Entry::getValue).distinct().count()).isEqualTo(4);
    List<Map<String, Object>> pending = list(dflt.get("pending"));
    assertThat(pending).hasSize(1);
    assertThat(pending.get(0)).containsEntry("pod", NS + "/huge");
    assertThat((String) pending.get(0).get("reason")).contains("Insufficient cpu");
    Map<String, Object> latency = map(dflt.get("latencyMillis"));
    assertThat(((Number) latency.get("count")).intValue()).isEqualTo(7);
    assertThat(((Number) latency.get("max")).longValue()).as("big waited for node-5")
        .isGreaterThanOrEqualTo(300);
    assertThat(((Number) latency.get("p50")).longValue()).isZero();

    Map<String, Object> most = configs.get(1);
    int defaultInUse = nodesInUse(dflt);
    int mostInUse = nodesInUse(most);
    assertThat(defaultInUse).isEqualTo(5);
    assertThat(mostInUse).as("MostAllocated packs").isLessThan(defaultInUse);
    // v1.36's BalancedAllocation (the pod's improvement of the balance, 50..100) pulls the
    // third medium pod off the fullest node: 3 of the 5 nodes, against 5 for LeastAllocated
    assertThat(mostInUse).isEqualTo(3);
    assertThat(list(most.get("differsFromFirst"))).isNotEmpty();
    assertThat(list(most.get("differsFromRecording"))).isNotEmpty();
    Map<String, Object> fragmentation = map(map(most.get("packing")).get("fragmentation"));
    assertThat(fragmentation).containsEntry("basis", "pending");
    // nothing can fit a 64-cpu pod: all free capacity is stranded
    assertThat(((Number) fragmentation.get("figure")).doubleValue()).isEqualTo(1.0);
    Map<String, Object> cpu = map(map(map(dflt.get("packing")).get("allocation")).get("cpu"));
    assertThat(((Number) cpu.get("requested")).longValue()).isEqualTo(6 * 2_000 + 10_000);
    assertThat(((Number) cpu.get("allocatable")).longValue()).isEqualTo(49_000);
  }

  @Test
  @Order(2)
  void replayingTwiceGivesTheSameOutputAndAnotherSeedTheSamePlacements() throws Exception {
    Replay first = replay("--from", recording.toString(), "--config", mostAllocated.toString());
    Replay second = replay("--from", recording.toString(), "--config", mostAllocated.toString());
    assertThat(first.status()).as("stderr: %s", first.err()).isZero();
    assertThat(first.out()).contains("3 of 5 nodes in use").contains("rec/huge: 0/5 nodes are available");
    assertThat(second.out()).isEqualTo(first.out());
    Replay both = replay("--from", recording.toString(), "--config", defaultConfig.toString(),
        "--config", mostAllocated.toString());
    assertThat(both.out()).contains("vs " + defaultConfig + ": ");
    // kept for a look: what a user sees
    Files.writeString(Path.of("target", "replay-example.txt"), both.out());
    Replay a = replay("--from", recording.toString(), "--json");
    Replay b = replay("--from", recording.toString(), "--json", "--seed", "42");
    assertThat(placements(list(a.json().get("configs")).get(0), "replayed"))
        .as("no tie decided a placement").isEqualTo(placements(list(b.json().get("configs")).get(0),
            "replayed"));
  }

  @Test
  @Order(3)
  void badInputExitsTwoNamingTheFileAndTheField() throws Exception {
    Replay missing = replay("--from", dir.resolve("nope.jsonl").toString());
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("nope.jsonl: no such file");
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        + "profiles:\n- schedulerName: x\n  plugins:\n    score:\n      enabled: [{name: NoSuchPlugin}]\n");
    Replay badConfig = replay("--from", recording.toString(), "--config", bad.toString());
    assertThat(badConfig.status()).isEqualTo(2);
    assertThat(badConfig.err()).contains("bad.yaml").contains("NoSuchPlugin");
    Path garbage = dir.resolve("garbage.jsonl");
    Files.writeString(garbage, "{\"t\":1,\"type\":\"ADDED\",\"kind\":\"Pod\"}\n");
    Replay badLine = replay("--from", garbage.toString());
    assertThat(badLine.status()).isEqualTo(2);
    assertThat(badLine.err()).contains("garbage.jsonl: line 1: field \"object\"");
    assertThat(replay("--from", recording.toString(), "--no-such-flag").status()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ helpers

  record Replay(int status, String out, String err) {
    Map<String, Object> json() {
      return map(new KubernetesSerialization().unmarshal(out, Map.class));
    }
  }

  private static Replay replay(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = ReplayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Replay(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Map<String, String> placements(Map<String, Object> config, String field) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map<String, Object> row : list(config.get("placements"))) {
      out.put(((String) row.get("pod")).substring(NS.length() + 1), (String) row.get(field));
    }
    return out;
  }

  private static int nodesInUse(Map<String, Object> config) {
    return ((Number) map(config.get("packing")).get("nodesInUse")).intValue();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> list(Object o) {
    return new ArrayList<>((List<Map<String, Object>>) o);
  }

  private static Pod pod(String name, String cpu, String memory) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage(IMAGE).withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).addToRequests("memory", new Quantity(memory))
        .endResources().endContainer().endSpec().build();
  }

  private static void createAndAwait(KubernetesClient client, Pod pod, boolean bound) {
    client.pods().inNamespace(NS).resource(pod).create();
    if (bound) {
      await().atMost(STARTUP).until(() -> nodeOf(client, pod.getMetadata().getName()) != null);
    }
  }

  private static String nodeOf(KubernetesClient client, String name) {
    Pod p = client.pods().inNamespace(NS).withName(name).get();
    return p == null || p.getSpec() == null ? null : p.getSpec().getNodeName();
  }

  private static String condition(KubernetesClient client, String name) {
    Pod p = client.pods().inNamespace(NS).withName(name).get();
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
        .map(c -> c.getReason()).findFirst().orElse(null);
  }

  private static int status(int port, String path) {
    try {
      return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:"
          + port + path)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (Exception e) {
      return "<unreadable: " + e + ">";
    }
  }
}
