package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Elastic quotas end to end, through the scheduler jar as users run it with a profile enabling CapacityScheduling
 * (in place of DefaultPreemption), the ElasticQuota CRD from {@code deploy/crds} served by the embedded cluster: two
 * namespaces with min 4 cpu each on an 8-cpu cluster; {@code a} borrows {@code b}'s idle share up to its max; a pod
 * over max waits with the reason; {@code b}'s new pods reclaim exactly what they need from {@code a}'s borrowed
 * pods, the preemptible pod first and then the lowest priority, and nothing below {@code a}'s min; a restarted
 * scheduler rebuilds {@code status.used} from the bound pods.
 */
class CapacitySchedulingProcessIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on :(\\d+)");
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar", "target/berth-scheduler.jar"));
  private static final Path CRD = Path.of("..", "deploy", "crds", "scheduling.x-k8s.io_elasticquotas.yaml");
  private static final String API_VERSION = "scheduling.x-k8s.io/v1alpha1";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "leaderElection:",
      "  leaderElect: false",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  plugins:",
      "    multiPoint:",
      "      enabled: [{name: CapacityScheduling}]",
      "      disabled: [{name: DefaultPreemption}]",
      "  pluginConfig:",
      "  - name: CapacityScheduling",
      "    args: {statusUpdatePeriodSeconds: 1}");

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(20))
          .withTerminationDelay(Duration.ofMillis(20))));

  @TempDir
  Path dir;

  private final List<Process> started = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();
  private KubernetesClient client;

  @AfterEach
  void killLeftovers() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void borrowOverMaxReclaimPreemptibleFirstLowestPriorityNeverBelowMinAndRestart() throws Exception {
    client = CLUSTER.client();
    client.apiextensions().v1().customResourceDefinitions().resource(client.apiextensions().v1()
        .customResourceDefinitions().load(CRD.toFile()).item()).create();
    CLUSTER.cluster().nodes().add(NodeSpec.node("n1").withCpu("4"));
    CLUSTER.cluster().nodes().add(NodeSpec.node("n2").withCpu("4"));
    for (String ns : List.of("a", "b")) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    priorityClass("low", 10);
    priorityClass("mid", 100);
    priorityClass("high", 1000);
    quota("a", "quota-a", "4", "6");
    quota("b", "quota-b", "4", "8");
    Path config = Files.writeString(dir.resolve("config.yaml"), CONFIG);
    int jar = start(config);
    int port = awaitPort(jar);
    await().atMost(WAIT).until(() -> get(port, "/readyz").statusCode() == 200);

    // a borrows b's idle share up to its max of 6: four pods of mid priority, one of low, one preemptible of high
    for (int i = 0; i < 4; i++) {
      create("a", pod("a", "a-mid-" + i, "mid", false));
    }
    create("a", pod("a", "a-low", "low", false));
    create("a", pod("a", "a-spot", "high", true));
    await().atMost(WAIT).until(() -> bound("a").size() == 6);
    await().atMost(WAIT).until(() -> "6".equals(usedCpu("a")));

    // a seventh pod of a is over its max: it waits, and says why (of low priority: none of a's is lower)
    create("a", pod("a", "a-over", "low", false));
    await().atMost(WAIT).until(() -> failedScheduling("a", "a-over").stream().anyMatch(m -> m.contains(
        "ElasticQuota \"a/quota-a\" is at its max: cpu: used 6 + requested 1 exceeds max 6 (min 4)")));
    assertThat(client.pods().inNamespace("a").withName("a-over").get().getSpec().getNodeName()).isNull();
    // /debug/simulate reads a copy of the live quotas: a's pod is over its max there too; b's pod fits on paper,
    // and the exact used amounts of b below show that its simulated Reserve charged only the copy
    JsonNode over = simulate(port, pod("a", "a-simulated", "low", false));
    assertThat(over.path("outcome").asString()).as("%s", over).isEqualTo("UNSCHEDULABLE");
    assertThat(over.path("message").asString()).contains(
        "ElasticQuota \"a/quota-a\" is at its max: cpu: used 6 + requested 1 exceeds max 6 (min 4)");
    assertThat(simulate(port, pod("b", "b-simulated", "low", false)).path("outcome").asString())
        .isEqualTo("SCHEDULED");

    // b's first two pods take the two idle cpus
    create("b", pod("b", "b-0", "low", false));
    create("b", pod("b", "b-1", "low", false));
    await().atMost(WAIT).until(() -> bound("b").size() == 2);

    // b within its min reclaims: the preemptible pod first, though its priority is the highest of a's
    create("b", pod("b", "b-2", "low", false));
    await().atMost(WAIT).until(() -> bound("b").size() == 3);
    assertThat(names("a")).doesNotContain("a-spot").contains("a-low");

    // then the lowest priority of a's borrowed pods
    create("b", pod("b", "b-3", "low", false));
    await().atMost(WAIT).until(() -> bound("b").size() == 4);
    assertThat(names("a")).doesNotContain("a-low");
    assertThat(bound("a")).containsExactlyInAnyOrder("a-mid-0", "a-mid-1", "a-mid-2", "a-mid-3");

    // b at its min cannot borrow (a is at its min, nothing to lend) and takes nothing below a's min
    create("b", pod("b", "b-4", "low", false));
    await().atMost(WAIT).until(() -> failedScheduling("b", "b-4").stream().anyMatch(m -> m.contains(
        "ElasticQuota \"b/quota-b\" cannot borrow, no quota has unused min to lend: cpu: used 4 + requested 1"
            + " exceeds min 4 (max 8), and all quotas use 8 of their summed min 8")));
    Thread.sleep(1500);
    assertThat(bound("a")).hasSize(4);
    assertThat(bound("b")).hasSize(4);
    await().atMost(WAIT).until(() -> "4".equals(usedCpu("a")) && "4".equals(usedCpu("b")));
    String metrics = get(port, "/metrics").body();
    assertThat(metrics).contains("berth_quota_used{namespace=\"a\",resource=\"cpu\"} 4.0")
        .contains("berth_quota_min{namespace=\"b\",resource=\"cpu\"} 4.0")
        .contains("berth_quota_max{namespace=\"a\",resource=\"cpu\"} 6.0")
        .contains("berth_quota_reclaims_total{namespace=\"b\"} 2.0")
        .contains("berth_quota_reclaimed_pods_total{namespace=\"a\"} 2.0");

    // restart: status.used is wrong while no scheduler runs; the new one rebuilds it from the bound pods
    started.get(jar).destroy();
    assertThat(started.get(jar).waitFor(30, TimeUnit.SECONDS)).isTrue();
    client.genericKubernetesResources(API_VERSION, "ElasticQuota").inNamespace("a").withName("quota-a")
        .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"used\":{\"cpu\":\"0\"}}}");
    assertThat(usedCpu("a")).isEqualTo("0");
    int again = start(config);
    int port2 = awaitPort(again);
    await().atMost(WAIT).until(() -> "4".equals(usedCpu("a")) && "4".equals(usedCpu("b")));
    assertThat(get(port2, "/metrics").body()).contains("berth_quota_used{namespace=\"a\",resource=\"cpu\"} 4.0");
    // the rebuilt count still keeps a-over and b-4 out, and freeing quota lets b-4 in
    Thread.sleep(1500);
    assertThat(client.pods().inNamespace("a").withName("a-over").get().getSpec().getNodeName()).isNull();
    assertThat(client.pods().inNamespace("b").withName("b-4").get().getSpec().getNodeName()).isNull();
    client.pods().inNamespace("a").withName("a-mid-0").withGracePeriod(0).delete();
    await().atMost(WAIT).until(() -> client.pods().inNamespace("b").withName("b-4").get().getSpec()
        .getNodeName() != null || client.pods().inNamespace("a").withName("a-over").get().getSpec()
        .getNodeName() != null);
    started.get(again).destroy();
    assertThat(started.get(again).waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(started.get(again).exitValue()).as("output:\n%s", output(again)).isZero();
  }

  private void priorityClass(String name, int value) {
    client.resource(new PriorityClassBuilder().withNewMetadata().withName(name).endMetadata().withValue(value)
        .build()).create();
  }

  private void quota(String ns, String name, String min, String max) {
    client.genericKubernetesResources(API_VERSION, "ElasticQuota").inNamespace(ns).resource(
        new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION).withKind("ElasticQuota")
            .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
            .addToAdditionalProperties("spec", Map.of("min", Map.of("cpu", min), "max", Map.of("cpu", max)))
            .build()).create();
  }

  private static Pod pod(String ns, String name, String priorityClass, boolean preemptible) {
    PodBuilder b = new PodBuilder(SchedulerIT.pod(name, "1", "default-scheduler")).editMetadata()
        .withNamespace(ns).endMetadata().editSpec().withPriorityClassName(priorityClass)
        .withTerminationGracePeriodSeconds(0L).endSpec();
    if (preemptible) {
      b.editMetadata().addToLabels("scheduling.berth.io/preemptible", "true").endMetadata();
    }
    return b.build();
  }

  private void create(String ns, Pod pod) {
    client.pods().inNamespace(ns).resource(pod).create();
  }

  private Set<String> names(String ns) {
    return client.pods().inNamespace(ns).list().getItems().stream().map(p -> p.getMetadata().getName())
        .collect(Collectors.toSet());
  }

  private List<String> bound(String ns) {
    return client.pods().inNamespace(ns).list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() != null && p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getMetadata().getName()).toList();
  }

  @SuppressWarnings("unchecked")
  private String usedCpu(String ns) {
    GenericKubernetesResource q = client.genericKubernetesResources(API_VERSION, "ElasticQuota").inNamespace(ns)
        .list().getItems().get(0);
    Object status = q.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("used") instanceof Map<?, ?> used)) {
      return null;
    }
    Object cpu = used.get("cpu");
    return cpu == null ? null : String.valueOf(cpu);
  }

  private List<String> failedScheduling(String ns, String pod) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> "FailedScheduling".equals(e.getReason()) && pod.equals(e.getInvolvedObject().getName()))
        .map(e -> e.getMessage()).toList();
  }

  private int start(Path config) throws IOException {
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", JAR.toString(), "--kubeconfig", CLUSTER.cluster().kubeconfig().toString(),
        "--config", config.toString(), "--port=0"));
    Path log = Files.createTempFile(dir, "jar-", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
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
    await().atMost(WAIT).until(() -> LISTENING.matcher(output(i)).find() || !started.get(i).isAlive());
    Matcher m = LISTENING.matcher(output(i));
    assertThat(m.find()).as("logged port; output:\n%s", output(i)).isTrue();
    return Integer.parseInt(m.group(1));
  }

  /** The one result of simulating {@code pod}. */
  private JsonNode simulate(int port, Pod pod) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
        + "/debug/simulate")).POST(HttpRequest.BodyPublishers.ofString(client.getKubernetesSerialization()
        .asJson(pod))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode root = JSON.readTree(r.body());
    assertThat(root.path("notes")).as("simulated with the live quotas").isEmpty();
    return root.path("results").get(0);
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
