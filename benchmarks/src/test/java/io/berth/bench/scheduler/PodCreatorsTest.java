package io.berth.bench.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.EmbeddedCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PodCreatorsTest {

  private static Pod template(String name) {
    return PerfObjects.pod("default", name, b -> b.editMetadata().withUid(null).withResourceVersion(null)
        .withCreationTimestamp(null).addToLabels("app", "web").endMetadata());
  }

  private static List<Pod> pods(String prefix, int n) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      pods.add(template(prefix + i));
    }
    return pods;
  }

  @Test
  void rawAndFabric8CreatesStoreTheSamePods() throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      try (PodCreators raw = new PodCreators(client, PodCreators.Mode.RAW, "default", pods("raw-", 1));
          PodCreators dsl = new PodCreators(client, PodCreators.Mode.FABRIC8, "default", pods("dsl-", 1))) {
        raw.run(1);
        dsl.run(1);
      }
      Pod viaRaw = client.pods().inNamespace("default").withName("raw-0").get();
      Pod viaDsl = client.pods().inNamespace("default").withName("dsl-0").get();
      assertThat(viaRaw).isNotNull();
      assertThat(viaDsl).isNotNull();
      assertThat(viaRaw.getSpec()).isEqualTo(viaDsl.getSpec());
      assertThat(viaRaw.getStatus()).isEqualTo(viaDsl.getStatus());
      assertThat(viaRaw.getMetadata().getLabels()).isEqualTo(viaDsl.getMetadata().getLabels())
          .containsEntry("app", "web");
      assertThat(viaRaw.getSpec().getContainers()).singleElement()
          .satisfies(c -> assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory"));
    }
  }

  @Test
  void everyPodIsCreatedOnceFromSeveralThreads() throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      for (PodCreators.Mode mode : PodCreators.Mode.values()) {
        String prefix = mode.name().toLowerCase() + "-";
        try (PodCreators creators = new PodCreators(client, mode, "default", pods(prefix, 25))) {
          creators.run(4);
        }
        List<String> names = client.pods().inNamespace("default").list().getItems().stream()
            .map(p -> p.getMetadata().getName()).filter(n -> n.startsWith(prefix)).sorted()
            .collect(Collectors.toList());
        assertThat(names).hasSize(25).doesNotHaveDuplicates()
            .containsAll(pods(prefix, 25).stream().map(p -> p.getMetadata().getName()).toList());
      }
    }
  }

  @Test
  void aRefusedRawCreateFailsTheRunWithTheServersAnswer() throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      try (PodCreators first = new PodCreators(client, PodCreators.Mode.RAW, "default", pods("dup-", 1))) {
        first.run(1);
      }
      try (PodCreators again = new PodCreators(client, PodCreators.Mode.RAW, "default", pods("dup-", 1))) {
        assertThatThrownBy(() -> again.run(1)).isInstanceOf(ExecutionException.class)
            .hasRootCauseInstanceOf(IllegalStateException.class)
            .rootCause().hasMessageContaining("HTTP 409").hasMessageContaining("dup-0");
      }
    }
  }

  @Test
  void rawModeRefusesAPodOfAnotherNamespace() throws Exception {
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
        KubernetesClient client = cluster.newClient()) {
      Pod other = PerfObjects.pod("other", "x", b -> b);
      assertThatThrownBy(() -> new PodCreators(client, PodCreators.Mode.RAW, "default", List.of(other)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
