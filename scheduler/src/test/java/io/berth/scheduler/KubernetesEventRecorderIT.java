package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The event recorder against the embedded API server over HTTP. */
class KubernetesEventRecorderIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private KubernetesEventRecorder recorder;

  @BeforeEach
  void start() {
    cluster = EmbeddedCluster.builder().start();
    client = cluster.client();
    recorder = new KubernetesEventRecorder(client, "berth-test", metrics);
  }

  @AfterEach
  void stop() {
    recorder.close();
    cluster.close();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace("default").withName(name)
        .withUid("uid-" + name).endMetadata().build();
  }

  private List<Event> events() {
    return client.v1().events().inNamespace("default").list().getItems();
  }

  private double count(String result) {
    return metrics.get("berth_scheduler_events").tag("result", result).counter().count();
  }

  @Test
  void aBurstOfEventsIsWrittenInFull() {
    for (int i = 0; i < 500; i++) {
      recorder.event(pod("p-" + i), "Normal", "Scheduled", "Binding",
          "Successfully assigned default/p-" + i + " to n1");
    }
    await().atMost(WAIT).until(() -> count("written") == 500);
    List<Event> events = events();
    assertThat(events).hasSize(500).allSatisfy(e -> {
      assertThat(e.getCount()).isEqualTo(1);
      assertThat(e.getSource().getComponent()).isEqualTo("berth-test");
      assertThat(e.getMessage()).isEqualTo("Successfully assigned default/"
          + e.getInvolvedObject().getName() + " to n1");
    });
    assertThat(count("dropped") + count("failed")).isZero();
  }

  @Test
  void repeatsBumpTheCountOfOneEventAndAnEventTheServerLostIsWrittenAgain() {
    for (int i = 0; i < 5; i++) {
      recorder.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/1 nodes are available");
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(events()).singleElement()
        .satisfies(e -> assertThat(e.getCount()).isEqualTo(5)));
    Event first = events().get(0);
    client.v1().events().inNamespace("default").withName(first.getMetadata().getName()).delete();
    await().atMost(WAIT).until(() -> events().isEmpty());
    recorder.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/1 nodes are available");
    await().atMost(WAIT).untilAsserted(() -> assertThat(events()).singleElement().satisfies(e -> {
      assertThat(e.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
      assertThat(e.getCount()).isEqualTo(6);
      assertThat(e.getReason()).isEqualTo("FailedScheduling");
    }));
  }

  @Test
  void aRefusedCreateIsCountedAsFailedAndLaterEventsAreStillWritten() {
    cluster.faults().failNext("create", "events", 1, 403);
    recorder.event(pod("refused"), "Normal", "Scheduled", "Binding", "Successfully assigned default/refused to n1");
    await().atMost(WAIT).until(() -> count("failed") == 1);
    recorder.event(pod("next"), "Normal", "Scheduled", "Binding", "Successfully assigned default/next to n1");
    await().atMost(WAIT).until(() -> count("written") == 1);
    assertThat(events()).singleElement()
        .satisfies(e -> assertThat(e.getInvolvedObject().getName()).isEqualTo("next"));
  }
}
