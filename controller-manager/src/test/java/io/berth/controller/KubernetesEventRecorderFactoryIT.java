package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Events written to the embedded API server: fields, count patches, never blocking the caller. */
class KubernetesEventRecorderFactoryIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private final MovableClock clock = new MovableClock(Instant.parse("2025-06-01T12:00:00Z"));
  private KubernetesEventRecorderFactory factory;

  @AfterEach
  void close() {
    if (factory != null) {
      factory.close();
    }
    CLUSTER.cluster().faults().clear();
  }

  private static ConfigMap subject(String name) {
    KubernetesClient client = CLUSTER.client();
    return client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
        .withName(name).endMetadata().build()).create();
  }

  private static List<Event> eventsAbout(String name) {
    return CLUSTER.client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName())).toList();
  }

  @Test
  void anEventCarriesTheObjectReferenceSourceAndTimestamps() {
    factory = new KubernetesEventRecorderFactory(CLUSTER.cluster().newClient(), clock, Duration.ofSeconds(10), 100);
    ConfigMap cm = subject("fields");
    factory.forComponent("replicaset-controller").event(cm, EventRecorder.NORMAL, "SuccessfulCreate",
        "Created pod: %s", "fields-abcde");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(eventsAbout("fields")).singleElement()
        .satisfies(e -> {
          assertThat(e.getMetadata().getName()).isEqualTo("fields." + Long.toHexString(
              Instant.parse("2025-06-01T12:00:00Z").getEpochSecond() * 1_000_000_000L));
          assertThat(e.getMetadata().getNamespace()).isEqualTo("default");
          assertThat(e.getInvolvedObject().getKind()).isEqualTo("ConfigMap");
          assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("v1");
          assertThat(e.getInvolvedObject().getName()).isEqualTo("fields");
          assertThat(e.getInvolvedObject().getNamespace()).isEqualTo("default");
          assertThat(e.getInvolvedObject().getUid()).isEqualTo(cm.getMetadata().getUid());
          assertThat(e.getInvolvedObject().getResourceVersion()).isEqualTo(cm.getMetadata().getResourceVersion());
          assertThat(e.getReason()).isEqualTo("SuccessfulCreate");
          assertThat(e.getMessage()).isEqualTo("Created pod: fields-abcde");
          assertThat(e.getType()).isEqualTo("Normal");
          assertThat(e.getCount()).isEqualTo(1);
          assertThat(e.getFirstTimestamp()).isEqualTo("2025-06-01T12:00:00Z");
          assertThat(e.getLastTimestamp()).isEqualTo("2025-06-01T12:00:00Z");
          assertThat(e.getSource().getComponent()).isEqualTo("replicaset-controller");
          assertThat(e.getReportingComponent()).isEqualTo("replicaset-controller");
        }));
  }

  @Test
  void aRepeatedEventIsCountedWithAPatchAndRecreatedIfItWasRemoved() {
    factory = new KubernetesEventRecorderFactory(CLUSTER.cluster().newClient(), clock, Duration.ofSeconds(10), 100);
    ConfigMap cm = subject("repeat");
    EventRecorder recorder = factory.forComponent("replicaset-controller");
    recorder.event(cm, EventRecorder.WARNING, "FailedCreate", "Error creating: %s", "quota");
    await().atMost(10, TimeUnit.SECONDS).until(() -> eventsAbout("repeat").size() == 1);
    CLUSTER.cluster().requestLog().clear();
    clock.advance(Duration.ofSeconds(42));
    recorder.event(cm, EventRecorder.WARNING, "FailedCreate", "Error creating: %s", "quota");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(eventsAbout("repeat")).singleElement()
        .satisfies(e -> {
          assertThat(e.getCount()).isEqualTo(2);
          assertThat(e.getFirstTimestamp()).isEqualTo("2025-06-01T12:00:00Z");
          assertThat(e.getLastTimestamp()).isEqualTo("2025-06-01T12:00:42Z");
        }));
    assertThat(CLUSTER.cluster().requestLog().entries(r -> r.resource().equals("events") && !r.verb().equals("list")))
        .extracting(r -> r.verb()).as("one PATCH, no GET before it, no new event").containsExactly("patch");

    Event first = eventsAbout("repeat").get(0);
    CLUSTER.client().v1().events().inNamespace("default").withName(first.getMetadata().getName()).delete();
    await().atMost(10, TimeUnit.SECONDS).until(() -> eventsAbout("repeat").isEmpty());
    clock.advance(Duration.ofSeconds(1));
    recorder.event(cm, EventRecorder.WARNING, "FailedCreate", "Error creating: %s", "quota");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(eventsAbout("repeat")).singleElement()
        .satisfies(e -> assertThat(e.getCount()).isEqualTo(3)));
  }

  @Test
  void recordingNeverBlocksOrThrowsAndDropsWhatTheQueueCannotHold() {
    EmbeddedCluster cluster = CLUSTER.cluster();
    cluster.faults().addLatency("create", "events", Duration.ofMillis(300));
    factory = new KubernetesEventRecorderFactory(cluster.newClient(), clock, Duration.ofSeconds(10), 5);
    ConfigMap cm = subject("flood");
    EventRecorder recorder = factory.forComponent("replicaset-controller");
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofMillis(1)); // distinct names, as distinct nanoseconds give in real time
      recorder.event(cm, EventRecorder.NORMAL, "Reason" + i, "message %d", i);
    }
    // all 50 calls returned at once: the queue holds at most 5, the writer one more, the rest were dropped
    assertThat(factory.queued()).isLessThanOrEqualTo(5);
    assertThatCode(() -> recorder.event(cm, "Bogus", "Reason", "unsupported type")).doesNotThrowAnyException();
    assertThatCode(() -> recorder.event(cm, EventRecorder.NORMAL, "Reason", "bad format %d", "text"))
        .doesNotThrowAnyException();
    await().atMost(20, TimeUnit.SECONDS).until(() -> factory.queued() == 0);
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
        assertThat(eventsAbout("flood")).hasSizeBetween(5, 6));
  }

  @Test
  void anEventTheServerRejectsIsDroppedAndTheNextOneIsWritten() {
    CLUSTER.cluster().faults().failNext("create", "events", 1, 500);
    factory = new KubernetesEventRecorderFactory(CLUSTER.cluster().newClient(), clock, Duration.ofSeconds(10), 100);
    ConfigMap cm = subject("rejected");
    EventRecorder recorder = factory.forComponent("replicaset-controller");
    recorder.event(cm, EventRecorder.NORMAL, "First", "lost");
    recorder.event(cm, EventRecorder.NORMAL, "Second", "kept");
    await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(eventsAbout("rejected"))
        .extracting(Event::getReason).containsExactly("Second"));
  }
}
