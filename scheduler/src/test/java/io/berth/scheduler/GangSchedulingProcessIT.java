package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Gang scheduling through the runnable scheduler jar (as users run it) against the embedded
 * cluster with the PodGroup CRD from {@code deploy/crds}: the group scheduling cycle places a gang
 * whole or not at all, and the Permit wait (for members that come late) releases and times out
 * the whole group at once. Complements the in-process {@link CoschedulingIT}.
 */
class GangSchedulingProcessIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  /** podMaxBackoffSeconds below: a requeued member is retried within this. */
  private static final Duration ONE_BACKOFF = Duration.ofSeconds(2);
  private static final Path JAR = Path.of(System.getProperty("berth.schedulerJar",
      "target/berth-scheduler.jar"));
  private static final Path POD_GROUP_CRD = Path.of("..", "deploy", "crds",
      "scheduling.x-k8s.io_podgroups.yaml");
  private static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "leaderElection:",
      "  leaderElect: false",
      "podInitialBackoffSeconds: 1",
      "podMaxBackoffSeconds: 2",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  plugins:",
      "    multiPoint:",
      "      enabled: [{name: Coscheduling}]",
      "      disabled: [{name: PrioritySort}]",
      "  pluginConfig:",
      "  - name: Coscheduling",
      "    args: {permitWaitingTimeSeconds: 30, podGroupBackoffSeconds: 1}");

  @TempDir
  Path dir;

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private Process jar;
  private Path log;
  private String testName;

  @BeforeEach
  void startClusterAndJar(TestInfo test) throws Exception {
    testName = test.getTestMethod().map(m -> m.getName()).orElse("test");
    cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(20)).withTerminationDelay(Duration.ofMillis(20))).start();
    client = cluster.client();
    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
        .load(POD_GROUP_CRD.toFile()).item();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    assertThat(JAR).as("the runnable jar (built by package)").isRegularFile();
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, CONFIG);
    log = dir.resolve("jar.log");
    Path logback = dir.resolve("logback.xml");
    Files.writeString(logback, String.join("\n", "<configuration>",
        "<appender name='OUT' class='ch.qos.logback.core.ConsoleAppender'><encoder>",
        "<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} %msg%n</pattern></encoder></appender>",
        "<logger name='io.berth.scheduler.GroupSchedulingCycle' level='DEBUG'/>",
        "<logger name='io.berth.plugins.coscheduling' level='DEBUG'/>",
        "<root level='INFO'><appender-ref ref='OUT'/></root></configuration>"));
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-Xmx256m", "-Dlogback.configurationFile=" + logback, "-jar",
        JAR.toString(), "--kubeconfig",
        cluster.kubeconfig().toString(), "--config", config.toString(), "--port=0")
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("KUBECONFIG");
    jar = builder.start();
    await().atMost(WAIT).until(() -> output().contains("listening on :") || !jar.isAlive());
    assertThat(jar.isAlive()).as("jar running; output:\n%s", output()).isTrue();
  }

  @AfterEach
  void stop() throws Exception {
    // the jar's log (group cycles at DEBUG) beside the failsafe reports, for a failing run
    Path kept = Path.of("target", "failsafe-reports", "GangSchedulingProcessIT-" + testName + ".log");
    Files.createDirectories(kept.getParent());
    if (log != null && Files.exists(log)) {
      Files.copy(log, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    if (jar != null && jar.isAlive()) {
      jar.destroy();
      if (!jar.waitFor(30, TimeUnit.SECONDS)) {
        jar.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    cluster.close();
  }

  /** The one result of simulating {@code pod} on the jar's {@code --port}. */
  private JsonNode simulate(Pod pod) throws Exception {
    Matcher port = Pattern.compile("listening on :(\\d+)").matcher(output());
    assertThat(port.find()).as("logged port; output:\n%s", output()).isTrue();
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://localhost:" + port.group(1) + "/debug/simulate")).POST(HttpRequest.BodyPublishers.ofString(
        client.getKubernetesSerialization().asJson(pod))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode root = JsonMapper.builder().build().readTree(r.body());
    assertThat(root.path("notes")).as("simulated with the live PodGroups").isEmpty();
    return root.path("results").get(0);
  }

  private String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  private void podGroup(String name, int minMember, Integer scheduleTimeoutSeconds) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("minMember", minMember);
    if (scheduleTimeoutSeconds != null) {
      spec.put("scheduleTimeoutSeconds", scheduleTimeoutSeconds);
    }
    client.genericKubernetesResources("scheduling.x-k8s.io/v1alpha1", "PodGroup").inNamespace("default")
        .resource(new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
            .withKind("PodGroup").withNewMetadata().withName(name).withNamespace("default").endMetadata()
            .addToAdditionalProperties("spec", spec).build())
        .create();
  }

  private void member(String name, String group) {
    client.pods().inNamespace("default").resource(memberPod(name, group)).create();
  }

  private static Pod memberPod(String name, String group) {
    return new PodBuilder(SchedulerIT.pod(name, "1", "default-scheduler")).editMetadata()
        .addToLabels("scheduling.x-k8s.io/pod-group", group).endMetadata().build();
  }

  private long bound(String group) {
    return client.pods().inNamespace("default").withLabel("scheduling.x-k8s.io/pod-group", group)
        .list().getItems().stream().filter(p -> p.getSpec().getNodeName() != null).count();
  }

  private List<Event> failedScheduling(String podName) {
    List<Event> out = new ArrayList<>();
    for (Event e : client.v1().events().inNamespace("default").list().getItems()) {
      if ("FailedScheduling".equals(e.getReason()) && podName.equals(e.getInvolvedObject().getName())) {
        out.add(e);
      }
    }
    return out;
  }

  private boolean eventSays(String podName, String... parts) {
    return failedScheduling(podName).stream().anyMatch(e -> {
      for (String part : parts) {
        if (!e.getMessage().contains(part)) {
          return false;
        }
      }
      return true;
    });
  }

  private String nominated(String podName) {
    Pod p = client.pods().inNamespace("default").withName(podName).get();
    return p == null || p.getStatus() == null ? null : p.getStatus().getNominatedNodeName();
  }

  @Test
  void aGangOfEightOnRoomForSixPlacesNoneSaysWhyAndAllBindWithinOneBackoffOfANewNode()
      throws Exception {
    for (int i = 0; i < 3; i++) {
      cluster.nodes().add(NodeSpec.node("n" + i).withCpu("2"));
    }
    podGroup("gang", 8, null);
    for (int i = 0; i < 8; i++) {
      member("g" + i, "gang");
    }
    await().atMost(WAIT).until(() -> eventSays("g0", "PodGroup \"default/gang\"",
        "cpu: needs 8, 6 free, short by 2"));
    assertThat(bound("gang")).isZero();
    // /debug/simulate reads the live PodGroup: one more member is checked against its group's minMember
    JsonNode simulated = simulate(memberPod("g-simulated", "gang"));
    assertThat(simulated.path("outcome").asString()).as("%s", simulated).isEqualTo("UNSCHEDULABLE");
    assertThat(simulated.path("message").asString()).contains("PodGroup \"default/gang\" does not fit the "
        + "cluster's free capacity (requests of 8 members): cpu: needs 8, 6 free, short by 2");

    cluster.nodes().add(NodeSpec.node("n3").withCpu("2"));
    await().atMost(ONE_BACKOFF.plusSeconds(5)).until(() -> bound("gang") == 8);
  }

  /**
   * Parks {@code b} and {@code c} in Permit waiting for a third member: {@code a} counts toward
   * minMember (it exists) but is bound to a node the scheduler does not know, so it is not placed;
   * b and c alone are too few for a group cycle, take the per-pod cycle and wait.
   */
  private void twoMembersWaitingForAThird(String group, Integer scheduleTimeoutSeconds) {
    cluster.nodes().add(NodeSpec.node("n0").withCpu("4"));
    podGroup(group, 3, scheduleTimeoutSeconds);
    client.pods().inNamespace("default").resource(new PodBuilder(memberPod("a", group))
        .editSpec().withNodeName("gone").endSpec().build()).create();
    member("b", group);
    member("c", group);
    await().atMost(WAIT).until(() -> nominated("b") != null && nominated("c") != null);
    assertThat(bound(group)).isEqualTo(1); // a only
  }

  @Test
  void deletingAWaitingMemberReleasesTheOthers() throws Exception {
    twoMembersWaitingForAThird("gang", null);
    client.pods().inNamespace("default").withName("b").withGracePeriod(0).delete();
    await().atMost(WAIT).until(() -> eventSays("c", "PodGroup \"default/gang\" rejected",
        "\"default/b\" was unreserved"));
    // released: no longer assumed on a node (its published nomination is cleared) and not bound
    await().atMost(WAIT).until(() -> nominated("c") == null);
    assertThat(client.pods().inNamespace("default").withName("c").get().getSpec().getNodeName())
        .isNull();
  }

  @Test
  void aScheduleTimeoutRejectsEveryWaitingMemberTogetherWithAnEventNamingTheGroup()
      throws Exception {
    twoMembersWaitingForAThird("slow", 2);
    await().atMost(WAIT).until(() -> eventSays("b", "PodGroup \"default/slow\" timed out after 2s")
        && eventSays("c", "PodGroup \"default/slow\" timed out after 2s"));
    assertThat(bound("slow")).isEqualTo(1); // a only
  }

  @Test
  void twoCompetingGangsNeverDeadlockOneIsPlacedTheOtherWaitsTwentyRounds() throws Exception {
    cluster.nodes().add(NodeSpec.node("n0").withCpu("2"));
    cluster.nodes().add(NodeSpec.node("n1").withCpu("2"));
    for (int round = 0; round < 20; round++) {
      String a = "a" + round;
      String b = "b" + round;
      podGroup(a, 3, null);
      podGroup(b, 3, null);
      for (int i = 0; i < 3; i++) {
        member(a + "-" + i, a);
        member(b + "-" + i, b);
      }
      int r = round;
      await().atMost(WAIT).until(() -> (bound(a) == 3 && bound(b) == 0)
          || (bound(a) == 0 && bound(b) == 3));
      String waiting = bound(a) == 0 ? a : b;
      await().atMost(WAIT).until(() -> eventSays(waiting + "-0", "PodGroup \"default/" + waiting
          + "\""));
      assertThat(List.of(bound(a), bound(b))).as("round %d", r).containsExactlyInAnyOrder(3L, 0L);
      client.pods().inNamespace("default").withGracePeriod(0).delete();
      await().atMost(WAIT).until(() -> client.pods().inNamespace("default").list().getItems()
          .isEmpty());
    }
  }
}
