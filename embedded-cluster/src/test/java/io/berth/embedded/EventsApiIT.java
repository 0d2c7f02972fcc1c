package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeriesBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * events.k8s.io/v1 and core/v1 Events are one set of stored objects, as on kube-apiserver: what either API writes
 * the other reads, lists, watches, patches and deletes, converted field by field, at the same resourceVersions;
 * events.k8s.io/v1 creates and updates get upstream's strict validation.
 */
class EventsApiIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static final String EVENT_TIME = "2026-12-02T08:00:00.123456Z";

  private static KubernetesClient client() {
    return CLUSTER.client();
  }

  private static void namespace(String name) {
    client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }

  private static ObjectReference pod(String namespace, String name) {
    return new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withNamespace(namespace)
        .withName(name).withUid("uid-" + name).withResourceVersion("7").build();
  }

  private static io.fabric8.kubernetes.api.model.events.v1.Event v1Event(String namespace, String name) {
    return new io.fabric8.kubernetes.api.model.events.v1.EventBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .withEventTime(new MicroTime(EVENT_TIME)).withReportingController("default-scheduler")
        .withReportingInstance("default-scheduler-host").withAction("Scheduling").withReason("FailedScheduling")
        .withNote("0/3 nodes are available").withType("Warning").withRegarding(pod(namespace, "web-0"))
        .withRelated(new ObjectReferenceBuilder().withKind("Node").withName("node-1").build()).build();
  }

  private static Event coreEvent(String namespace, String name) {
    return new EventBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .withInvolvedObject(pod(namespace, "db-0")).withReason("Scheduled").withMessage("assigned db-0 to node-2")
        .withType("Normal").withCount(3).withFirstTimestamp("2026-12-02T07:00:00Z")
        .withLastTimestamp("2026-12-02T07:05:00Z").withNewSource().withComponent("old-scheduler").endSource()
        .withReportingComponent("old-scheduler").build();
  }

  private static io.fabric8.kubernetes.client.dsl.MixedOperation<io.fabric8.kubernetes.api.model.events.v1.Event,
      io.fabric8.kubernetes.api.model.events.v1.EventList,
      io.fabric8.kubernetes.client.dsl.Resource<io.fabric8.kubernetes.api.model.events.v1.Event>> v1() {
    return client().events().v1().events();
  }

  @Test
  void anEventCreatedThroughEventsV1IsTheCoreEventOfTheSameVersion() {
    namespace("from-v1");
    var created = v1().inNamespace("from-v1").resource(v1Event("from-v1", "web-0.1")).create();
    assertThat(created.getApiVersion()).isEqualTo("events.k8s.io/v1");

    Event core = client().v1().events().inNamespace("from-v1").withName("web-0.1").get();
    assertThat(core.getApiVersion()).isEqualTo("v1");
    assertThat(core.getMetadata().getResourceVersion()).isEqualTo(created.getMetadata().getResourceVersion());
    assertThat(core.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
    assertThat(core.getInvolvedObject()).isEqualTo(pod("from-v1", "web-0"));
    assertThat(core.getMessage()).isEqualTo("0/3 nodes are available");
    assertThat(core.getReportingComponent()).isEqualTo("default-scheduler");
    assertThat(core.getReportingInstance()).isEqualTo("default-scheduler-host");
    assertThat(core.getAction()).isEqualTo("Scheduling");
    assertThat(core.getReason()).isEqualTo("FailedScheduling");
    assertThat(core.getType()).isEqualTo("Warning");
    assertThat(core.getEventTime().getTime()).isEqualTo(EVENT_TIME);
    assertThat(core.getRelated().getName()).isEqualTo("node-1");
    assertThat(core.getCount()).isNull();
    assertThat(core.getFirstTimestamp()).isNull();

    assertThat(client().v1().events().inNamespace("from-v1").list().getItems())
        .extracting(e -> e.getMetadata().getName()).containsExactly("web-0.1");
    assertThat(v1().inNamespace("from-v1").list().getItems()).extracting(e -> e.getMetadata().getName())
        .containsExactly("web-0.1");
  }

  @Test
  void aCoreEventReadsThroughEventsV1WithItsDeprecatedFields() {
    namespace("from-core");
    Event created = client().v1().events().inNamespace("from-core").resource(coreEvent("from-core", "db-0.1"))
        .create();

    var v1 = v1().inNamespace("from-core").withName("db-0.1").get();
    assertThat(v1.getApiVersion()).isEqualTo("events.k8s.io/v1");
    assertThat(v1.getMetadata().getResourceVersion()).isEqualTo(created.getMetadata().getResourceVersion());
    assertThat(v1.getRegarding()).isEqualTo(pod("from-core", "db-0"));
    assertThat(v1.getNote()).isEqualTo("assigned db-0 to node-2");
    assertThat(v1.getReportingController()).isEqualTo("old-scheduler");
    assertThat(v1.getDeprecatedCount()).isEqualTo(3);
    assertThat(v1.getDeprecatedFirstTimestamp()).isEqualTo("2026-12-02T07:00:00Z");
    assertThat(v1.getDeprecatedLastTimestamp()).isEqualTo("2026-12-02T07:05:00Z");
    assertThat(v1.getDeprecatedSource().getComponent()).isEqualTo("old-scheduler");
    assertThat(v1.getEventTime()).isNull();
    assertThat(v1.getSeries()).isNull();
  }

  @Test
  void aSeriesPatchedThroughEventsV1IsTheCoreSeriesAndDeletesGoThroughBoth() {
    namespace("series");
    var created = v1().inNamespace("series").resource(v1Event("series", "web-0.2")).create();
    long rv = Long.parseLong(created.getMetadata().getResourceVersion());

    var patched = v1().inNamespace("series").withName("web-0.2").patch(
        PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"series\":{\"count\":2,\"lastObservedTime\":\"2026-12-02T08:01:00.000001Z\"}}");
    assertThat(patched.getSeries().getCount()).isEqualTo(2);
    assertThat(Long.parseLong(patched.getMetadata().getResourceVersion())).isGreaterThan(rv);
    Event core = client().v1().events().inNamespace("series").withName("web-0.2").get();
    assertThat(core.getSeries().getCount()).isEqualTo(2);
    assertThat(core.getSeries().getLastObservedTime().getTime()).isEqualTo("2026-12-02T08:01:00.000001Z");
    assertThat(core.getMetadata().getResourceVersion()).isEqualTo(patched.getMetadata().getResourceVersion());
    assertThat(core.getMessage()).isEqualTo("0/3 nodes are available");

    // a core/v1 merge patch is seen through events.k8s.io/v1
    client().v1().events().inNamespace("series").withName("web-0.2")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"seen\":\"core\"}}}");
    assertThat(v1().inNamespace("series").withName("web-0.2").get().getMetadata().getLabels())
        .containsEntry("seen", "core");

    assertThat(client().v1().events().inNamespace("series").withName("web-0.2").delete()).hasSize(1);
    assertThat(v1().inNamespace("series").withName("web-0.2").get()).isNull();

    client().v1().events().inNamespace("series").resource(coreEvent("series", "db-0.2")).create();
    assertThat(v1().inNamespace("series").withName("db-0.2").delete()).hasSize(1);
    assertThat(client().v1().events().inNamespace("series").withName("db-0.2").get()).isNull();
  }

  @Test
  void fieldSelectorsUseEachApisFieldNames() {
    namespace("selectors");
    v1().inNamespace("selectors").resource(v1Event("selectors", "web-0.3")).create();
    client().v1().events().inNamespace("selectors").resource(coreEvent("selectors", "db-0.3")).create();

    assertThat(v1().inNamespace("selectors").withField("regarding.name", "db-0").list().getItems())
        .extracting(e -> e.getMetadata().getName()).containsExactly("db-0.3");
    assertThat(v1().inNamespace("selectors").withField("reportingController", "default-scheduler").list()
        .getItems()).extracting(e -> e.getMetadata().getName()).containsExactly("web-0.3");
    assertThat(client().v1().events().inNamespace("selectors").withField("involvedObject.name", "web-0").list()
        .getItems()).extracting(e -> e.getMetadata().getName()).containsExactly("web-0.3");
  }

  @Test
  void eachApisWatchSeesTheOthersWrites() throws Exception {
    namespace("watches");
    List<String> v1Seen = new CopyOnWriteArrayList<>();
    List<String> coreSeen = new CopyOnWriteArrayList<>();
    try (Watch v1Watch = v1().inNamespace("watches").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, io.fabric8.kubernetes.api.model.events.v1.Event e) {
        v1Seen.add(action + " " + e.getMetadata().getName() + " " + e.getNote() + " "
            + e.getMetadata().getResourceVersion());
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    }); Watch coreWatch = client().v1().events().inNamespace("watches").watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, Event e) {
        coreSeen.add(action + " " + e.getMetadata().getName() + " " + e.getMessage() + " "
            + e.getMetadata().getResourceVersion());
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      Event core = client().v1().events().inNamespace("watches").resource(coreEvent("watches", "db-0.4")).create();
      var v1 = v1().inNamespace("watches").resource(v1Event("watches", "web-0.4")).create();
      var patched = v1().inNamespace("watches").withName("web-0.4").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
          "{\"series\":{\"count\":2,\"lastObservedTime\":\"2026-12-02T08:02:00.000000Z\"}}");
      v1().inNamespace("watches").withName("db-0.4").delete();

      Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
        assertThat(v1Seen).hasSize(4);
        assertThat(coreSeen).hasSize(4);
      });
      String coreRv = core.getMetadata().getResourceVersion();
      String v1Rv = v1.getMetadata().getResourceVersion();
      String patchedRv = patched.getMetadata().getResourceVersion();
      assertThat(v1Seen.subList(0, 3)).containsExactly("ADDED db-0.4 assigned db-0 to node-2 " + coreRv,
          "ADDED web-0.4 0/3 nodes are available " + v1Rv, "MODIFIED web-0.4 0/3 nodes are available " + patchedRv);
      assertThat(coreSeen.subList(0, 3)).containsExactly("ADDED db-0.4 assigned db-0 to node-2 " + coreRv,
          "ADDED web-0.4 0/3 nodes are available " + v1Rv, "MODIFIED web-0.4 0/3 nodes are available " + patchedRv);
      assertThat(v1Seen.get(3)).startsWith("DELETED db-0.4 assigned db-0 to node-2 ");
      assertThat(coreSeen.get(3)).isEqualTo(v1Seen.get(3));
    }
  }

  @Test
  void eventsV1CreatesNeedWhatUpstreamRequires() {
    namespace("strict");
    var noTime = v1Event("strict", "a.1");
    noTime.setEventTime(null);
    assertInvalid(() -> v1().inNamespace("strict").resource(noTime).create(), "eventTime: Required value");

    var bare = v1Event("strict", "a.2");
    bare.setReportingController(null);
    bare.setReportingInstance(null);
    bare.setAction(null);
    assertInvalid(() -> v1().inNamespace("strict").resource(bare).create(), "reportingController: Required value",
        "reportingInstance: Required value", "action: Required value");

    var longNote = v1Event("strict", "a.3");
    longNote.setNote("x".repeat(1025));
    assertInvalid(() -> v1().inNamespace("strict").resource(longNote).create(),
        "message: Invalid value: \"\": can have at most 1024 characters");
    var exactNote = v1Event("strict", "a.4");
    exactNote.setNote("x".repeat(1024));
    assertThat(v1().inNamespace("strict").resource(exactNote).create().getNote()).hasSize(1024);
    // the limits count UTF-8 bytes, as Go's len: 513 two-byte characters are 1026 bytes, 512 are exactly 1024
    var wideNote = v1Event("strict", "a.6");
    wideNote.setNote("é".repeat(513));
    assertInvalid(() -> v1().inNamespace("strict").resource(wideNote).create(),
        "message: Invalid value: \"\": can have at most 1024 characters");
    var exactWideNote = v1Event("strict", "a.7");
    exactWideNote.setNote("é".repeat(512));
    assertThat(v1().inNamespace("strict").resource(exactWideNote).create().getNote()).hasSize(512);
    var wideReason = v1Event("strict", "a.8");
    wideReason.setReason("✓".repeat(43)); // 129 bytes
    assertInvalid(() -> v1().inNamespace("strict").resource(wideReason).create(),
        "reason: Invalid value: \"\": can have at most 128 characters");

    var deprecated = v1Event("strict", "a.5");
    deprecated.setDeprecatedCount(2);
    deprecated.setType("Info");
    assertInvalid(() -> v1().inNamespace("strict").resource(deprecated).create(),
        "count: Invalid value: \"\": needs to be unset", "type: Invalid value: \"\": has invalid value: Info");

    var shortSeries = v1Event("strict", "a.6");
    shortSeries.setSeries(new EventSeriesBuilder().withCount(1).build());
    assertInvalid(() -> v1().inNamespace("strict").resource(shortSeries).create(),
        "series.count: Invalid value: \"\": should be at least 2", "series.lastObservedTime: Required value");

    // core/v1 keeps its legacy rules: no eventTime, no new fields needed; with one, the same ones as above
    assertThat(client().v1().events().inNamespace("strict").resource(coreEvent("strict", "b.1")).create())
        .isNotNull();
    Event timed = coreEvent("strict", "b.2");
    timed.setEventTime(new MicroTime(EVENT_TIME));
    assertInvalid(() -> client().v1().events().inNamespace("strict").resource(timed).create(),
        "reportingInstance: Required value", "action: Required value");
    assertThat(client().v1().events().inNamespace("strict").list().getItems())
        .extracting(e -> e.getMetadata().getName()).containsExactlyInAnyOrder("a.4", "a.7", "b.1");
  }

  @Test
  void eventsV1UpdatesMayChangeOnlyMetadataAndTheSeries() {
    namespace("updates");
    v1().inNamespace("updates").resource(v1Event("updates", "web-0.5")).create();
    assertInvalid(() -> v1().inNamespace("updates").withName("web-0.5").edit(e -> {
      e.setNote("another note");
      return e;
    }), "message: Invalid value: \"another note\": field is immutable");
    var labelled = v1().inNamespace("updates").withName("web-0.5").edit(e -> {
      e.getMetadata().setLabels(Map.of("k", "v"));
      return e;
    });
    assertThat(labelled.getMetadata().getLabels()).containsEntry("k", "v");
    assertThat(client().v1().events().inNamespace("updates").withName("web-0.5").get().getMetadata().getLabels())
        .containsEntry("k", "v");
  }

  private static void assertInvalid(Runnable write, String... causes) {
    assertThatThrownBy(write::run).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
      assertThat(e.getCode()).isEqualTo(422);
      assertThat(e.getMessage()).contains(causes);
    });
  }

  /**
   * Writers on both APIs at once: creates through each, and label patches of one shared Event through each; every
   * create is listed by both and no patch is lost (each one applied to the version it read, or again).
   */
  @Test
  void concurrentWritesThroughBothApisLoseNothing() throws Exception {
    namespace("concurrent");
    v1().inNamespace("concurrent").resource(v1Event("concurrent", "shared")).create();
    int threads = 6;
    int perThread = 15;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        boolean throughV1 = t % 2 == 0;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            String name = "t" + thread + "-" + i;
            String label = "{\"metadata\":{\"labels\":{\"" + name + "\":\"x\"}}}";
            if (throughV1) {
              v1().inNamespace("concurrent").resource(v1Event("concurrent", name)).create();
              v1().inNamespace("concurrent").withName("shared").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
                  label);
            } else {
              client().v1().events().inNamespace("concurrent").resource(coreEvent("concurrent", name)).create();
              client().v1().events().inNamespace("concurrent").withName("shared")
                  .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), label);
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Set<String> expected = new java.util.TreeSet<>();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        expected.add("t" + t + "-" + i);
      }
    }
    Set<String> core = client().v1().events().inNamespace("concurrent").list().getItems().stream()
        .map(e -> e.getMetadata().getName()).collect(Collectors.toCollection(java.util.TreeSet::new));
    Set<String> v1 = v1().inNamespace("concurrent").list().getItems().stream()
        .map(e -> e.getMetadata().getName()).collect(Collectors.toCollection(java.util.TreeSet::new));
    Set<String> all = new java.util.TreeSet<>(expected);
    all.add("shared");
    assertThat(core).isEqualTo(all);
    assertThat(v1).isEqualTo(all);
    assertThat(v1().inNamespace("concurrent").withName("shared").get().getMetadata().getLabels().keySet())
        .isEqualTo(expected);
  }
}
