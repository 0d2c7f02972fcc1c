package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gang scheduling end to end: the PodGroup CRD from {@code deploy/crds} applied to the embedded cluster, a scheduler
 * profile with Coscheduling in place of PrioritySort, PodGroups and their members observed through the API server.
 */
class CoschedulingIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Path POD_GROUP_CRD = Path.of("..", "deploy", "crds", "scheduling.x-k8s.io_podgroups.yaml");
  private static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  plugins:",
      "    multiPoint:",
      "      enabled: [{name: Coscheduling}]",
      "      disabled: [{name: PrioritySort}]",
      "  pluginConfig:",
      "  - name: Coscheduling",
      "    args: {permitWaitingTimeSeconds: 3, podGroupBackoffSeconds: 1}");

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  @BeforeEach
  void startCluster() throws Exception {
    cluster = EmbeddedCluster.builder().kubelet(KubeletSettings.defaults()
        .withStartupDelay(Duration.ofMillis(20)).withTerminationDelay(Duration.ofMillis(20))).start();
    client = cluster.client();
    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
        .load(POD_GROUP_CRD.toFile()).item();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  private void podGroup(String name, int minMember) {
    client.genericKubernetesResources("scheduling.x-k8s.io/v1alpha1", "PodGroup").inNamespace("default")
        .resource(new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
            .withKind("PodGroup").withNewMetadata().withName(name).withNamespace("default").endMetadata()
            .addToAdditionalProperties("spec", Map.of("minMember", minMember)).build())
        .create();
  }

  private void member(String name, String group) {
    Pod pod = new PodBuilder(SchedulerIT.pod(name, "1", "default-scheduler")).editMetadata()
        .addToLabels("scheduling.x-k8s.io/pod-group", group).endMetadata().build();
    client.pods().inNamespace("default").resource(pod).create();
  }

  private long bound(String group) {
    return members(group).stream().filter(p -> p.getSpec().getNodeName() != null).count();
  }

  private List<Pod> members(String group) {
    return client.pods().inNamespace("default").withLabel("scheduling.x-k8s.io/pod-group", group).list()
        .getItems();
  }

  @Test
  void gangOfEightOnRoomForSixPlacesNoneSaysWhyThenAllBindWhenANodeIsAdded() throws Exception {
    for (int i = 0; i < 3; i++) {
      cluster.nodes().add(NodeSpec.node("n" + i).withCpu("2"));
    }
    scheduler = new InProcessScheduler(client, CONFIG);
    podGroup("gang", 8);
    for (int i = 0; i < 8; i++) {
      member("g" + i, "gang");
    }
    await().atMost(WAIT).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
        .anyMatch(e -> "FailedScheduling".equals(e.getReason())
            && e.getInvolvedObject().getName().startsWith("g")
            && e.getMessage().contains("PodGroup \"default/gang\"")
            && e.getMessage().contains("cpu: needs 8, 6 free, short by 2")));
    assertThat(bound("gang")).isZero();

    cluster.nodes().add(NodeSpec.node("n3").withCpu("2"));
    await().atMost(WAIT).until(() -> bound("gang") == 8);
  }

  @Test
  void membersCreatedBeforeTheirPodGroupAreHeldThenBindWhenItIsCreated() throws Exception {
    cluster.nodes().add(NodeSpec.node("n0").withCpu("4"));
    scheduler = new InProcessScheduler(client, CONFIG);
    for (int i = 0; i < 3; i++) {
      member("early" + i, "late-group");
    }
    // Held by PreEnqueue (the PodGroup does not exist), so not even tried: no node, no condition.
    Thread.sleep(1000);
    assertThat(bound("late-group")).isZero();
    podGroup("late-group", 3);
    await().atMost(WAIT).until(() -> bound("late-group") == 3);
  }

  @Test
  void aMemberThatFitsNowhereRejectsItsWaitingSiblingWithAnEventNamingTheGroup() throws Exception {
    cluster.nodes().add(NodeSpec.node("n0").withCpu("4"));
    scheduler = new InProcessScheduler(client, CONFIG);
    podGroup("pair", 2);
    member("fits", "pair");
    client.pods().inNamespace("default").resource(new PodBuilder(SchedulerIT.pod("misfit", "1", "default-scheduler"))
        .editMetadata().addToLabels("scheduling.x-k8s.io/pod-group", "pair").endMetadata()
        .editSpec().addToNodeSelector("disk", "ssd").endSpec().build()).create();
    await().atMost(WAIT).until(() -> client.v1().events().inNamespace("default").list().getItems().stream()
        .anyMatch(e -> "FailedScheduling".equals(e.getReason()) && e.getInvolvedObject().getName().equals("fits")
            && e.getMessage().contains("PodGroup \"default/pair\"")));
    assertThat(bound("pair")).isZero();
  }

  @Test
  void twoGangsThatTogetherDoNotFitEndWithOnePlacedAndTheOtherWaiting() throws Exception {
    cluster.nodes().add(NodeSpec.node("n0").withCpu("2"));
    cluster.nodes().add(NodeSpec.node("n1").withCpu("2"));
    scheduler = new InProcessScheduler(client, CONFIG);
    for (int round = 0; round < 20; round++) {
      String a = "a" + round;
      String b = "b" + round;
      podGroup(a, 3);
      podGroup(b, 3);
      for (int i = 0; i < 3; i++) {
        member(a + "-" + i, a);
        member(b + "-" + i, b);
      }
      int r = round;
      await().atMost(WAIT).until(() -> (bound(a) == 3 && bound(b) == 0) || (bound(a) == 0 && bound(b) == 3));
      Thread.sleep(200);
      assertThat(List.of(bound(a), bound(b))).as("round %d", r).containsExactlyInAnyOrder(3L, 0L);
      client.pods().inNamespace("default").withGracePeriod(0).delete();
      await().atMost(WAIT).until(() -> client.pods().inNamespace("default").list().getItems().isEmpty());
    }
  }
}
