package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The hand-composed Event bodies against what fabric8's builders and serializer make of the same Events. */
class EventJsonTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final ObjectMapper TREES = new ObjectMapper();
  private static final Instant FIRST = Instant.parse("2026-12-01T12:00:00.123456789Z");
  private static final Instant LAST = Instant.parse("2026-12-01T12:00:05.000007Z");

  private static EventOccurrence occurrence(String ns, String name, String uid, String rv, String type,
      String reason, String action, String message) {
    return new EventOccurrence(ns, name, "v1", "Pod", uid, rv, type, reason, action, message, FIRST);
  }

  private static String coreViaFabric8(String name, EventOccurrence o, String component, int count) {
    Event event = new EventBuilder()
        .withNewMetadata().withNamespace(o.namespace()).withName(name).endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(o.apiVersion()).withKind(o.kind()).withNamespace(o.namespace())
        .withName(o.name()).withUid(o.uid()).withResourceVersion(o.resourceVersion())
        .endInvolvedObject()
        .withType(o.type()).withReason(o.reason()).withAction(o.action()).withMessage(o.message())
        .withNewSource().withComponent(component).endSource()
        .withReportingComponent(component)
        .withFirstTimestamp("2026-12-01T12:00:00Z").withLastTimestamp("2026-12-01T12:00:05Z").withCount(count)
        .build();
    return JSON.asJson(event);
  }

  private static String v1ViaFabric8(String name, EventOccurrence o, String controller, String instance,
      int count) {
    var builder = new io.fabric8.kubernetes.api.model.events.v1.EventBuilder()
        .withNewMetadata().withNamespace(o.namespace()).withName(name).endMetadata()
        .withEventTime(new MicroTime("2026-12-01T12:00:00.123456Z"))
        .withReportingController(controller).withReportingInstance(instance)
        .withAction(o.action()).withReason(o.reason())
        .withNewRegarding()
        .withApiVersion(o.apiVersion()).withKind(o.kind()).withNamespace(o.namespace())
        .withName(o.name()).withUid(o.uid()).withResourceVersion(o.resourceVersion())
        .endRegarding()
        .withNote(o.message()).withType(o.type());
    if (count > 1) {
      builder.withNewSeries().withCount(count).withLastObservedTime(new MicroTime("2026-12-01T12:00:05.000007Z"))
          .endSeries();
    }
    return JSON.asJson(builder.build());
  }

  private static JsonNode tree(String json) {
    return TREES.readTree(json);
  }

  @Test
  void aCoreV1ScheduledEventIsTheSameJsonAsFabric8Writes() {
    EventOccurrence o = occurrence("default", "web-0", "8f1c-uid", "42", "Normal", "Scheduled", "Binding",
        "Successfully assigned default/web-0 to node-1");
    String mine = new CoreV1EventFormat("default-scheduler").create(o, "web-0.18a2b3c4d5e6f708", 3, LAST);
    assertThat(tree(mine)).isEqualTo(tree(coreViaFabric8("web-0.18a2b3c4d5e6f708", o, "default-scheduler", 3)));
  }

  @Test
  void anEventsV1EventIsTheSameJsonAsFabric8WritesWithASeriesOnlyWhenRepeated() {
    EventOccurrence o = occurrence("default", "web-0", "8f1c-uid", "42", "Warning", "FailedScheduling",
        "Scheduling", "0/3 nodes are available: 3 Insufficient cpu.");
    EventsV1EventFormat format = new EventsV1EventFormat("default-scheduler", "default-scheduler-host");
    String first = format.create(o, "web-0.1", 1, FIRST);
    assertThat(tree(first)).isEqualTo(tree(v1ViaFabric8("web-0.1", o, "default-scheduler",
        "default-scheduler-host", 1)));
    assertThat(tree(first).has("series")).isFalse();
    String again = format.create(o, "web-0.1", 4, LAST);
    assertThat(tree(again)).isEqualTo(tree(v1ViaFabric8("web-0.1", o, "default-scheduler",
        "default-scheduler-host", 4)));
    assertThat(format.repeat(4, LAST))
        .isEqualTo("{\"series\":{\"count\":4,\"lastObservedTime\":\"2026-12-01T12:00:05.000007Z\"}}");
  }

  @Test
  void microTimeHasSixFractionalDigitsInUtc() {
    assertThat(EventJson.microTime(Instant.parse("2026-12-02T12:00:00Z"))).isEqualTo("2026-12-02T12:00:00.000000Z");
    assertThat(EventJson.microTime(Instant.parse("2026-12-02T12:00:00.123456999Z")))
        .isEqualTo("2026-12-02T12:00:00.123456Z");
  }

  @Test
  void quotesControlCharactersAndNonAsciiAndLeavesOutAbsentMembers() {
    String message = "0/3 nodes are available: 1 node(s) had untolerated taint {a: \"b\\c\"},\n\ttabs"
        + " \u0001 and ünïcødé ✓";
    EventOccurrence o = occurrence("ns", "p\"q", null, null, "Warning", "FailedScheduling", null, message);
    String mine = new CoreV1EventFormat("berth-scheduler").create(o, "p\"q.1", 1, FIRST.plusSeconds(5));
    JsonNode tree = tree(mine);
    assertThat(tree).isEqualTo(tree(coreViaFabric8("p\"q.1", o, "berth-scheduler", 1)));
    assertThat(tree.get("message").asString()).isEqualTo(message);
    assertThat(tree.has("action")).isFalse();
    assertThat(tree.get("involvedObject").has("uid")).isFalse();
    assertThat(JSON.unmarshal(mine, Event.class).getInvolvedObject().getName()).isEqualTo("p\"q");
    JsonNode v1 = tree(new EventsV1EventFormat("berth-scheduler", "berth-scheduler-h").create(o, "p\"q.1", 1, FIRST));
    assertThat(v1.get("note").asString()).isEqualTo(message);
    assertThat(v1.get("regarding").has("uid")).isFalse();
  }
}
