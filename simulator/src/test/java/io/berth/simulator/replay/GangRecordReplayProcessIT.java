package io.berth.simulator.replay;

import static io.berth.simulator.replay.RecordReplayProcessIT.list;
import static io.berth.simulator.replay.RecordReplayProcessIT.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.scheduler.record.RecordedEvent;
import io.berth.scheduler.record.RecordingReader;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gangs recorded live and replayed: the scheduler jar with {@code --record} and a Coscheduling
 * profile places a scheduler-plugins PodGroup of 3 (held until its third member exists) and a
 * {@code scheduling.k8s.io/v1alpha2} PodGroup of 4 that fits only once a node is added (all or
 * nothing: none of it binds before). The recording holds both PodGroups, and berth-replay through
 * the same configuration places every member where the live run did, after the same waits, with
 * any tie-break seed.
 */
class GangRecordReplayProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "../scheduler/target/berth-scheduler.jar"));
  private static final Path CRDS = Path.of(System.getProperty("berth.deployDir", "../deploy")).resolve("crds");
  private static final String NS = "gang";
  private static final String V1ALPHA1 = "scheduling.x-k8s.io/v1alpha1";
  private static final String V1ALPHA2 = "scheduling.k8s.io/v1alpha2";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(EmbeddedCluster::builder);

  @TempDir
  static Path dir;

  static Path recording;
  static Path gangConfig;
  static final Map<String, String> live = new LinkedHashMap<>();

  @BeforeAll
  static void recordALiveRunWithGangs() throws Exception {
    KubernetesClient client = CLUSTER.client();
    for (String crd : List.of("scheduling.x-k8s.io_podgroups.yaml", "scheduling.k8s.io_podgroups.yaml")) {
      try (InputStream in = Files.newInputStream(CRDS.resolve(crd))) {
        CustomResourceDefinition d = client.apiextensions().v1().customResourceDefinitions().load(in).item();
        client.apiextensions().v1().customResourceDefinitions().resource(d).create();
      }
    }
    // as in RecordReplayProcessIT: no two nodes score the same for these pods
    String[][] shapes = {{"9", "24Gi"}, {"7", "24Gi"}, {"12", "8Gi"}, {"5", "16Gi"}};
    for (int i = 0; i < shapes.length; i++) {
      CLUSTER.cluster().nodes().add(NodeSpec.node("node-" + (i + 1)).withCpu(shapes[i][0])
          .withMemory(shapes[i][1]));
    }
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
        .build()).create();
    gangConfig = Files.writeString(dir.resolve("gang.yaml"), String.join("\n",
        "apiVersion: kubescheduler.config.k8s.io/v1",
        "kind: KubeSchedulerConfiguration",
        "profiles:",
        "- schedulerName: default-scheduler",
        "  plugins:",
        "    multiPoint:",
        "      enabled: [{name: Coscheduling}]",
        "      disabled: [{name: PrioritySort}]", ""));
    recording = dir.resolve("gangs.jsonl");
    Path log = dir.resolve("scheduler.log");
    Process jar = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", JAR.toString(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(),
        "--config", gangConfig.toString(), "--leader-elect=false", "--port=0", "--record",
        recording.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await().atMost(STARTUP).until(() -> LISTENING.matcher(read(log)).find() || !jar.isAlive());
      Matcher m = LISTENING.matcher(read(log));
      assertThat(m.find()).as("port logged; output:\n%s", read(log)).isTrue();
      int port = Integer.parseInt(m.group(1));
      await().atMost(STARTUP).until(() -> status(port, "/readyz") == 200);

      // scheduler-plugins' gang of 3: the first two wait for the third
      client.genericKubernetesResources(V1ALPHA1, "PodGroup").inNamespace(NS).resource(
          new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA1).withKind("PodGroup")
              .withNewMetadata().withName("trio").withNamespace(NS).endMetadata()
              .addToAdditionalProperties("spec", Map.of("minMember", 3)).build()).create();
      // distinct priorities order the members within the group cycle: in the replay the three are
      // activated at one simulated instant, so their queue times tie where the live run's did not
      for (int i = 0; i < 3; i++) {
        client.resource(new PriorityClassBuilder().withNewMetadata().withName("trio-" + i).endMetadata()
            .withValue(3000 - 1000 * i).build()).create();
      }
      for (int i = 0; i < 2; i++) {
        String name = "trio-" + i;
        create(client, name, "2", p -> p.editMetadata()
            .addToLabels("scheduling.x-k8s.io/pod-group", "trio").endMetadata().editSpec()
            .withPriorityClassName(name).endSpec());
      }
      // the scheduler holds both (its queue has them): only then does their recorded wait start
      await().atMost(STARTUP).until(() -> status(port, "/debug/explain/" + NS + "/trio-1") == 200);
      Thread.sleep(300);
      assertThat(nodeOf(client, "trio-0")).as("held until the gang is complete").isNull();
      create(client, "trio-2", "2", p -> p.editMetadata()
          .addToLabels("scheduling.x-k8s.io/pod-group", "trio").endMetadata().editSpec()
          .withPriorityClassName("trio-2").endSpec());
      await().atMost(STARTUP).until(() -> List.of(0, 1, 2).stream()
          .allMatch(i -> nodeOf(client, "trio-" + i) != null));

      // a Workload API gang of 4 pods of 8 cpu: at most two fit before node-5 comes
      client.genericKubernetesResources(V1ALPHA2, "PodGroup").inNamespace(NS).resource(
          new GenericKubernetesResourceBuilder().withApiVersion(V1ALPHA2).withKind("PodGroup")
              .withNewMetadata().withName("ring").withNamespace(NS).endMetadata()
              .addToAdditionalProperties("spec", Map.of("schedulingPolicy",
                  Map.of("gang", Map.of("minCount", 4)))).build()).create();
      for (int i = 0; i < 4; i++) {
        create(client, "ring-" + i, "8", p -> p.editSpec().withNewSchedulingGroup()
            .withPodGroupName("ring").endSchedulingGroup().endSpec());
      }
      await().atMost(STARTUP).until(() -> List.of(0, 1, 2, 3).stream()
          .allMatch(i -> condition(client, "ring-" + i) != null));
      Thread.sleep(300);
      assertThat(List.of(0, 1, 2, 3).stream().map(i -> nodeOf(client, "ring-" + i)))
          .as("all or nothing").containsOnlyNulls();
      CLUSTER.cluster().nodes().add(NodeSpec.node("node-5").withCpu("32").withMemory("64Gi"));
      await().atMost(STARTUP).until(() -> List.of(0, 1, 2, 3).stream()
          .allMatch(i -> nodeOf(client, "ring-" + i) != null));
    } finally {
      jar.destroy();
      assertThat(jar.waitFor(30, TimeUnit.SECONDS)).as("exited; output:\n%s", read(log)).isTrue();
    }
    assertThat(jar.exitValue()).as("output:\n%s", read(log)).isZero();
    for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
      live.put(p.getMetadata().getName(), p.getSpec().getNodeName());
    }
    assertThat(live).hasSize(7).doesNotContainValue(null);
  }

  @Test
  void bothPodGroupsAreRecordedAndTheGangsReplayToTheLivePlacementsAfterTheSameWaits() throws Exception {
    List<RecordedEvent> events = RecordingReader.readAll(recording);
    assertThat(events).filteredOn(e -> e.kind().equals("PodGroup")).extracting(RecordedEvent::apiVersion)
        .contains(V1ALPHA1, V1ALPHA2);

    Map<String, Object> gang = replay("--from", recording.toString(), "--config", gangConfig.toString(),
        "--json");
    assertThat(placements(gang)).as("the gangs replay to the live placements").isEqualTo(live);
    assertThat(list(gang.get("differsFromRecording"))).isEmpty();
    assertThat(list(gang.get("pending"))).isEmpty();
    Map<String, Object> latency = map(gang.get("latencyMillis"));
    assertThat(((Number) latency.get("count")).intValue()).isEqualTo(7);
    // trio-0 and trio-1 waited for trio-2, the whole ring for node-5: 6 of 7 pods waited
    assertThat(((Number) latency.get("p50")).longValue()).as("members waited for their gang")
        .isGreaterThanOrEqualTo(300);

    Map<String, Object> seeded = replay("--from", recording.toString(), "--config", gangConfig.toString(),
        "--json", "--seed", "42");
    assertThat(placements(seeded)).as("no tie decided a placement").isEqualTo(live);
  }

  private static Map<String, Object> replay(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = ReplayMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(status).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    Map<String, Object> root = map(new KubernetesSerialization().unmarshal(
        out.toString(StandardCharsets.UTF_8), Map.class));
    return list(root.get("configs")).get(0);
  }

  private static Map<String, String> placements(Map<String, Object> config) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map<String, Object> row : list(config.get("placements"))) {
      out.put(((String) row.get("pod")).substring(NS.length() + 1), (String) row.get("replayed"));
    }
    return out;
  }

  private static void create(KubernetesClient client, String name, String cpu, UnaryOperator<PodBuilder> edit) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.example/app:1").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).addToRequests("memory", new Quantity("1Gi"))
        .endResources().endContainer().endSpec();
    client.pods().inNamespace(NS).resource(edit.apply(b).build()).create();
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
