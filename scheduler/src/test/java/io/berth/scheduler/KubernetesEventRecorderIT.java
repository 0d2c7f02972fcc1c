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
      assertThat(e.getCount()).isNull(); // written through events.k8s.io/v1: no deprecatedCount
      assertThat(e.getSeries()).isNull();
      assertThat(EventOccurrences.count(e)).isEqualTo(1);
      assertThat(e.getReportingComponent()).isEqualTo("berth-test");
      assertThat(e.getReportingInstance()).startsWith("berth-test-");
      assertThat(e.getEventTime().getTime()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
      assertThat(e.getMessage()).isEqualTo("Successfully assigned default/"
          + e.getInvolvedObject().getName() + " to n1");
    });
    // the same Events through events.k8s.io/v1
    assertThat(client.resources(io.fabric8.kubernetes.api.model.events.v1.Event.class).inNamespace("default")
        .list().getItems()).hasSize(500).allSatisfy(e -> {
          assertThat(e.getReportingController()).isEqualTo("berth-test");
          assertThat(e.getNote()).startsWith("Successfully assigned default/");
        });
    assertThat(count("dropped") + count("failed")).isZero();
  }

  @Test
  void repeatsSetTheSeriesOfOneEventAndAnEventTheServerLostIsWrittenAgain() {
    for (int i = 0; i < 5; i++) {
      recorder.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/1 nodes are available: " + i);
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(events()).singleElement().satisfies(e -> {
      assertThat(e.getSeries().getCount()).isEqualTo(5);
      assertThat(EventOccurrences.count(e)).isEqualTo(5);
      assertThat(e.getMessage()).isEqualTo("0/1 nodes are available: 0"); // the first note stays
    }));
    Event first = events().get(0);
    client.v1().events().inNamespace("default").withName(first.getMetadata().getName()).delete();
    await().atMost(WAIT).until(() -> events().isEmpty());
    recorder.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/1 nodes are available");
    await().atMost(WAIT).untilAsserted(() -> assertThat(events()).singleElement().satisfies(e -> {
      assertThat(e.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
      assertThat(e.getSeries().getCount()).isEqualTo(6);
      assertThat(e.getReason()).isEqualTo("FailedScheduling");
    }));
    assertThat(count("failed")).isZero();
  }

  @Test
  void aServerWithoutEventsV1GetsCoreV1EventsWithTheirCount() {
    recorder.close();
    // discovery of events.k8s.io/v1 fails: the recorder falls back to core/v1
    cluster.faults().failNext("get", "", 1, 404);
    assertThat(EventApiDiscovery.servesEventsV1(client)).isFalse();
    assertThat(EventApiDiscovery.servesEventsV1(client)).isTrue();
    recorder = new KubernetesEventRecorder(client, "berth-test", metrics, false);
    for (int i = 0; i < 3; i++) {
      recorder.event(pod("q"), "Warning", "FailedScheduling", "Scheduling", "0/1 nodes are available");
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(events()).singleElement().satisfies(e -> {
      assertThat(e.getCount()).isEqualTo(3);
      assertThat(e.getSeries()).isNull();
      assertThat(e.getEventTime()).isNull();
      assertThat(e.getSource().getComponent()).isEqualTo("berth-test");
      assertThat(EventOccurrences.count(e)).isEqualTo(3);
    }));
    assertThat(cluster.requestLog().entries(r -> r.resource().equals("events") && !r.verb().startsWith("get")
        && !r.verb().equals("list") && !r.verb().equals("delete")))
        .extracting(r -> r.verb() + " " + r.group()).startsWith("create ").containsOnly("create ", "patch ")
        .containsOnlyOnce("create "); // repeats during the create are folded into one patch
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
