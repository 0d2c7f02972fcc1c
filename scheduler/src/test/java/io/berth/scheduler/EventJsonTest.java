package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The hand-composed Event body against what fabric8's builder and serializer make of the same Event. */
class EventJsonTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final ObjectMapper TREES = new ObjectMapper();

  private static String viaFabric8(String ns, String name, EventJson.Regarding r, String type, String reason,
      String action, String message, String component, String first, String last, int count) {
    Event event = new EventBuilder()
        .withNewMetadata().withNamespace(ns).withName(name).endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(r.apiVersion()).withKind(r.kind()).withNamespace(r.namespace())
        .withName(r.name()).withUid(r.uid()).withResourceVersion(r.resourceVersion())
        .endInvolvedObject()
        .withType(type).withReason(reason).withAction(action).withMessage(message)
        .withNewSource().withComponent(component).endSource()
        .withReportingComponent(component)
        .withFirstTimestamp(first).withLastTimestamp(last).withCount(count)
        .build();
    return JSON.asJson(event);
  }

  private static JsonNode tree(String json) {
    return TREES.readTree(json);
  }

  @Test
  void aScheduledEventIsTheSameJsonAsFabric8Writes() {
    EventJson.Regarding pod = new EventJson.Regarding("v1", "Pod", "default", "web-0", "8f1c-uid", "42");
    String mine = EventJson.create("default", "web-0.18a2b3c4d5e6f708", pod, "Normal", "Scheduled", "Binding",
        "Successfully assigned default/web-0 to node-1", "default-scheduler", "2026-12-01T12:00:00Z",
        "2026-12-01T12:00:05Z", 3);
    assertThat(tree(mine)).isEqualTo(tree(viaFabric8("default", "web-0.18a2b3c4d5e6f708", pod, "Normal",
        "Scheduled", "Binding", "Successfully assigned default/web-0 to node-1", "default-scheduler",
        "2026-12-01T12:00:00Z", "2026-12-01T12:00:05Z", 3)));
  }

  @Test
  void quotesControlCharactersAndNonAsciiAndLeavesOutAbsentMembers() {
    EventJson.Regarding pod = new EventJson.Regarding("v1", "Pod", "ns", "p\"q", null, null);
    String message = "0/3 nodes are available: 1 node(s) had untolerated taint {a: \"b\\c\"},\n\ttabs"
        + " \u0001 and ünïcødé ✓";
    String mine = EventJson.create("ns", "p\"q.1", pod, "Warning", "FailedScheduling", null, message,
        "berth-scheduler", "2026-12-01T12:00:00Z", "2026-12-01T12:00:00Z", 1);
    JsonNode tree = tree(mine);
    assertThat(tree).isEqualTo(tree(viaFabric8("ns", "p\"q.1", pod, "Warning", "FailedScheduling", null,
        message, "berth-scheduler", "2026-12-01T12:00:00Z", "2026-12-01T12:00:00Z", 1)));
    assertThat(tree.get("message").asString()).isEqualTo(message);
    assertThat(tree.has("action")).isFalse();
    assertThat(tree.get("involvedObject").has("uid")).isFalse();
    assertThat(JSON.unmarshal(mine, Event.class).getInvolvedObject().getName()).isEqualTo("p\"q");
  }
}
