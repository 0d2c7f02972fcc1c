package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/** Decoding of watch frames, both layouts; the transport is covered by the mock-server tests and the IT. */
class WebSocketWatchStreamTest {

  private static final ClientSerialization JSON = new ClientSerialization();
  private final WebSocketWatchStream<Pod> stream =
      new WebSocketWatchStream<>(Pod.class, JSON, false, "Pod (test)");

  private static String pod(String name, String rv) {
    return "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"ns\","
        + "\"resourceVersion\":\"" + rv + "\"},\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\"}]}}";
  }

  @Test
  void theApiServersLayoutIsBoundToTheWatchedClass() {
    WatchEvent<Pod> event = stream.decode("{\"type\":\"MODIFIED\",\"object\":" + pod("a", "12") + "}");
    assertThat(event.type()).isEqualTo(WatchEvent.Type.MODIFIED);
    assertThat(event.resourceVersion()).isEqualTo("12");
    Pod pod = event.object().orElseThrow();
    assertThat(pod.getMetadata().getName()).isEqualTo("a");
    assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
    assertThat(stream.decode("{\"type\":\"ADDED\",\"object\":" + pod("b", "13") + "}\n").type())
        .isEqualTo(WatchEvent.Type.ADDED);
    assertThat(stream.decode("{\"type\":\"DELETED\",\"object\":" + pod("b", "14") + "}").type())
        .isEqualTo(WatchEvent.Type.DELETED);
  }

  @Test
  void anotherFieldOrderGoesThroughFabric8sDecoding() {
    WatchEvent<Pod> event = stream.decode("{\"object\":" + pod("a", "15") + ",\"type\":\"ADDED\"}");
    assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
    assertThat(event.object().orElseThrow().getMetadata().getName()).isEqualTo("a");
    assertThat(event.resourceVersion()).isEqualTo("15");
  }

  @Test
  void bookmarksCarryOnlyTheResourceVersion() {
    WatchEvent<Pod> event = stream.decode("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
        + "\"metadata\":{\"resourceVersion\":\"99\"}}}");
    assertThat(event.type()).isEqualTo(WatchEvent.Type.BOOKMARK);
    assertThat(event.resourceVersion()).isEqualTo("99");
    assertThat(event.object()).isEmpty();
  }

  @Test
  void anErrorEventCarriesTheServersStatus() {
    WatchEvent<Pod> event = stream.decode("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
        + "\"status\":\"Failure\",\"message\":\"too old resource version: 5 (90)\",\"reason\":\"Expired\",\"code\":410}}");
    assertThat(event.type()).isEqualTo(WatchEvent.Type.ERROR);
    assertThat(event.cause()).get().isInstanceOfSatisfying(KubernetesClientException.class,
        e -> assertThat(e.getCode()).isEqualTo(410));
    assertThat(ApiErrors.isExpired(event.cause().orElseThrow())).isTrue();
  }

  @Test
  void anUndecodableFrameIsAnErrorAndAnUnknownTypeIsSkipped() {
    WatchEvent<Pod> bad = stream.decode("{\"type\":\"ADDED\",\"object\":{\"metadata\":[1,2]}}");
    assertThat(bad.type()).isEqualTo(WatchEvent.Type.ERROR);
    assertThat(bad.cause().orElseThrow().getMessage()).contains("Pod (test)").contains("undecodable");
    assertThat(stream.decode("not json").type()).isEqualTo(WatchEvent.Type.ERROR);
    assertThat(stream.decode("{\"type\":\"SOMETHING\",\"object\":" + pod("a", "1") + "}")).isNull();
  }

  @Test
  void managedFieldsAreSkippedWhenTheStreamDropsThem() {
    String withManaged = "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
        + "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"20\","
        + "\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
        + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:nodeName\":{}}}}],"
        + "\"labels\":{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"n1\"}}}";
    Pod kept = stream.decode(withManaged).object().orElseThrow();
    assertThat(kept.getMetadata().getManagedFields()).hasSize(1);
    WebSocketWatchStream<Pod> dropping = new WebSocketWatchStream<>(Pod.class, JSON, true, "Pod (test)");
    WatchEvent<Pod> event = dropping.decode(withManaged);
    assertThat(event.resourceVersion()).isEqualTo("20");
    Pod pod = event.object().orElseThrow();
    assertThat(pod.getMetadata().getManagedFields()).isEmpty();
    assertThat(pod.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    assertThat(pod.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
    // in the other field order (fabric8's mock server writes the object first) they are dropped too
    int objectStart = withManaged.indexOf("{\"kind\"");
    String reordered = "{\"object\":" + withManaged.substring(objectStart, withManaged.length() - 1)
        + ",\"type\":\"MODIFIED\"}";
    Pod viaFabric8 = dropping.decode(reordered).object().orElseThrow();
    assertThat(viaFabric8.getMetadata().getManagedFields()).isEmpty();
    assertThat(viaFabric8.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(stream.decode(reordered).object().orElseThrow().getMetadata().getManagedFields()).hasSize(1);
  }

  @Test
  void whitespaceBetweenTokensIsFine() {
    WatchEvent<Pod> event = stream.decode("{ \"type\" : \"ADDED\" ,\n \"object\" : " + pod("w", "30") + " }\n");
    assertThat(event.type()).isEqualTo(WatchEvent.Type.ADDED);
    assertThat(event.object().orElseThrow().getMetadata().getName()).isEqualTo("w");
  }

  @Test
  void anEventWithoutAnObjectIsAnError() {
    assertThat(stream.decode("{\"type\":\"ADDED\",\"object\":null}").type()).isEqualTo(WatchEvent.Type.ERROR);
  }
}
