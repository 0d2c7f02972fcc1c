package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.kubelet.KubeletSettings;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Simulated nodes and the simulated kubelet: start, readiness, admission, graceful stop, node changes. */
class SimulatedKubeletIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(50))
          .withTerminationDelay(Duration.ofMillis(500)).withNeverReadyImages(Set.of("broken:1"))));

  private static Pod awaitPhase(String name, String phase) {
    KubernetesClient client = CLUSTER.client();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> {
      Pod p = client.pods().withName(name).get();
      return p != null && p.getStatus() != null && phase.equals(p.getStatus().getPhase());
    });
    return client.pods().withName(name).get();
  }

  @Test
  void aBoundPodBecomesRunningAndReadyWithConditionsAndStatuses() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-ready").withZone("zone-a"));
    Node node = client.nodes().withName("k-ready").get();
    assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", "k-ready")
        .containsEntry("topology.kubernetes.io/zone", "zone-a");
    assertThat(node.getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
    client.pods().resource(Fixtures.boundPod("runs", "k-ready")).create();
    Pod running = awaitPhase("runs", "Running");
    assertThat(running.getStatus().getConditions()).filteredOn(c -> "True".equals(c.getStatus()))
        .extracting(PodCondition::getType)
        .contains("PodScheduled", "Initialized", "ContainersReady", "Ready");
    assertThat(running.getStatus().getStartTime()).isNotBlank();
    assertThat(running.getStatus().getPodIP()).isNotBlank();
    assertThat(running.getStatus().getContainerStatuses()).singleElement()
        .satisfies(cs -> {
          assertThat(cs.getReady()).isTrue();
          assertThat(cs.getState().getRunning()).isNotNull();
        });
  }

  @Test
  void aNeverReadyImageRunsButStaysUnready() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-unready"));
    client.pods().resource(new io.fabric8.kubernetes.api.model.PodBuilder(Fixtures.boundPod("unready", "k-unready"))
        .editSpec().editFirstContainer().withImage("broken:1").endContainer().endSpec().build()).create();
    Pod running = awaitPhase("unready", "Running");
    assertThat(running.getStatus().getConditions()).filteredOn(c -> c.getType().equals("Ready"))
        .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("False"));
  }

  @Test
  void aPodThatDoesNotFitFailsWithAnOutOfReason() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-small").withCpu("1"));
    client.pods().resource(new io.fabric8.kubernetes.api.model.PodBuilder(Fixtures.podRequesting("fits", "600m"))
        .editSpec().withNodeName("k-small").endSpec().build()).create();
    awaitPhase("fits", "Running");
    client.pods().resource(new io.fabric8.kubernetes.api.model.PodBuilder(Fixtures.podRequesting("too-big", "600m"))
        .editSpec().withNodeName("k-small").endSpec().build()).create();
    Pod failed = awaitPhase("too-big", "Failed");
    assertThat(failed.getStatus().getReason()).isEqualTo("OutOfcpu");
    assertThat(failed.getStatus().getMessage()).contains("cpu").contains("requested: 600");
  }

  @Test
  void deletingABoundPodIsGracefulUntilTheKubeletStopsIt() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-stop"));
    client.pods().resource(Fixtures.boundPod("stops", "k-stop")).create();
    awaitPhase("stops", "Running");
    client.pods().withName("stops").delete();
    Pod terminating = client.pods().withName("stops").get();
    assertThat(terminating).isNotNull();
    assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotBlank();
    assertThat(terminating.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> client.pods().withName("stops").get() == null);
  }

  @Test
  void anUnboundPodOrAZeroGracePeriodDeletesAtOnce() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-now"));
    client.pods().resource(Fixtures.pod("unbound-now")).create();
    client.pods().withName("unbound-now").delete();
    assertThat(client.pods().withName("unbound-now").get()).isNull();
    client.pods().resource(Fixtures.boundPod("forced", "k-now")).create();
    client.pods().withName("forced").withGracePeriod(0).delete();
    assertThat(client.pods().withName("forced").get()).isNull();
  }

  @Test
  void aNotReadyNodeRunsNothingUntilItIsReadyAgain() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-flaky"));
    CLUSTER.cluster().nodes().setReady("k-flaky", false);
    Node notReady = client.nodes().withName("k-flaky").get();
    assertThat(notReady.getSpec().getTaints()).extracting(Taint::getKey, Taint::getEffect)
        .contains(org.assertj.core.groups.Tuple.tuple("node.kubernetes.io/not-ready", "NoSchedule"));
    client.pods().resource(Fixtures.boundPod("waits", "k-flaky")).create();
    Awaitility.await().pollDelay(300, TimeUnit.MILLISECONDS).atMost(2, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(client.pods().withName("waits").get().getStatus().getPhase()).isEqualTo("Pending"));
    CLUSTER.cluster().nodes().setReady("k-flaky", true);
    assertThat(client.nodes().withName("k-flaky").get().getSpec().getTaints()).isNullOrEmpty();
    awaitPhase("waits", "Running");
  }

  @Test
  void removingANodeRemovesItsPods() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-gone"));
    client.pods().resource(Fixtures.boundPod("orphaned", "k-gone")).create();
    awaitPhase("orphaned", "Running");
    CLUSTER.cluster().nodes().remove("k-gone");
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> client.pods().withName("orphaned").get() == null);
  }

  @Test
  void nodesCanBeCordonedAndTaintedAtRunTime() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().nodes().add(NodeSpec.node("k-admin"));
    CLUSTER.cluster().nodes().cordon("k-admin");
    assertThat(client.nodes().withName("k-admin").get().getSpec().getUnschedulable()).isTrue();
    CLUSTER.cluster().nodes().uncordon("k-admin");
    assertThat(client.nodes().withName("k-admin").get().getSpec().getUnschedulable()).isNull();
    CLUSTER.cluster().nodes().taint("k-admin", new NodeSpec.Taint("dedicated", "gpu", "NoSchedule"));
    assertThat(client.nodes().withName("k-admin").get().getSpec().getTaints()).extracting(Taint::getKey)
        .containsExactly("dedicated");
    CLUSTER.cluster().nodes().untaint("k-admin", "dedicated");
    assertThat(client.nodes().withName("k-admin").get().getSpec().getTaints()).isNullOrEmpty();
  }
}
