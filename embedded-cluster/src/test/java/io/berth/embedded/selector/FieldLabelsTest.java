package io.berth.embedded.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class FieldLabelsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final JsonNode BOUND_POD = json("""
      {"apiVersion":"v1","kind":"Pod",
       "metadata":{"name":"web-1","namespace":"shop"},
       "spec":{"nodeName":"node-1","restartPolicy":"Always","schedulerName":"berth",
               "serviceAccountName":"default","hostNetwork":true},
       "status":{"phase":"Running","podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"},{"ip":"fd00::7"}],
                 "nominatedNodeName":"node-2"}}
      """);

  @Test
  void podFieldsFollowUpstreamSelectableFields() {
    Map<String, String> fields = FieldLabels.selectableFields("", "pods", BOUND_POD);

    assertThat(fields).containsEntry("metadata.name", "web-1")
        .containsEntry("metadata.namespace", "shop")
        .containsEntry("spec.nodeName", "node-1")
        .containsEntry("spec.restartPolicy", "Always")
        .containsEntry("spec.schedulerName", "berth")
        .containsEntry("spec.serviceAccountName", "default")
        .containsEntry("spec.hostNetwork", "true")
        .containsEntry("status.phase", "Running")
        .containsEntry("status.podIP", "10.0.0.7")
        .containsEntry("status.nominatedNodeName", "node-2")
        .doesNotContainKey("status.podIPs");
  }

  @Test
  void podWithoutOptionalFieldsReadsEmptyAndHostNetworkFalse() {
    Map<String, String> fields = FieldLabels.selectableFields("", "pods", json("{\"metadata\":{\"name\":\"p\"}}"));

    assertThat(fields).containsEntry("spec.nodeName", "").containsEntry("spec.hostNetwork", "false")
        .containsEntry("metadata.namespace", "");
  }

  @Test
  void unboundPodSelectorMatchesOnlyPodsWithoutNode() {
    FieldSelector unbound = FieldSelector.parse("spec.nodeName=");
    JsonNode pending = json("{\"metadata\":{\"name\":\"p\"},\"spec\":{}}");

    assertThat(unbound.matches(FieldLabels.fieldValues("", "pods", pending))).isTrue();
    assertThat(unbound.matches(FieldLabels.fieldValues("", "pods", BOUND_POD))).isFalse();
  }

  @Test
  void legacySpecHostSelectsOnNodeName() {
    assertThat(FieldSelector.parse("spec.host=node-1").matches(FieldLabels.fieldValues("", "pods", BOUND_POD)))
        .isTrue();
  }

  @Test
  void podIpsIsAcceptedButNeverPresentAsUpstream() {
    FieldSelector selector = FieldSelector.parse("status.podIPs=10.0.0.7");
    FieldLabels.validate(selector, "", "pods");

    assertThat(selector.matches(FieldLabels.fieldValues("", "pods", BOUND_POD))).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''             | pods                       | status.hostIP",
      "''             | pods                       | spec.nodename",
      "''             | nodes                      | metadata.namespace",
      "''             | nodes                      | status.phase",
      "''             | namespaces                 | metadata.namespace",
      "''             | configmaps                 | data.key",
      "''             | events                     | regarding.kind",
      "events.k8s.io  | events                     | involvedObject.kind",
      "events.k8s.io  | events                     | source",
      "apps           | deployments                | status.replicas",
  })
  void unsupportedFieldIsRejectedWithUpstreamMessage(String group, String resource, String field) {
    FieldSelector selector = FieldSelector.parse(field + "=x");

    assertThatThrownBy(() -> FieldLabels.validate(selector, group, resource))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field label not supported: " + field);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''             | pods                       | status.nominatedNodeName",
      "''             | nodes                      | spec.unschedulable",
      "''             | namespaces                 | status.phase",
      "''             | secrets                    | type",
      "''             | events                     | involvedObject.uid",
      "''             | events                     | reportingComponent",
      "events.k8s.io  | events                     | regarding.name",
      "events.k8s.io  | events                     | reportingController",
      "apps           | replicasets                | status.replicas",
      "apps           | deployments                | metadata.namespace",
      "coordination.k8s.io | leases                | metadata.name",
  })
  void supportedFieldIsAccepted(String group, String resource, String field) {
    FieldLabels.validate(FieldSelector.parse(field + "=x"), group, resource);

    assertThat(FieldLabels.supportedFields(group, resource)).contains(field);
  }

  @Test
  void nodeUnschedulableReadsAsBooleanText() {
    JsonNode cordoned = json("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"unschedulable\":true}}");
    JsonNode schedulable = json("{\"metadata\":{\"name\":\"m\"},\"spec\":{}}");
    FieldSelector selector = FieldSelector.parse("spec.unschedulable=false");

    assertThat(selector.matches(FieldLabels.fieldValues("", "nodes", schedulable))).isTrue();
    assertThat(selector.matches(FieldLabels.fieldValues("", "nodes", cordoned))).isFalse();
    assertThat(FieldLabels.selectableFields("", "nodes", cordoned)).doesNotContainKey("metadata.namespace");
  }

  @Test
  void coreEventFieldsComeFromInvolvedObjectAndSource() {
    JsonNode event = json("""
        {"metadata":{"name":"e","namespace":"shop"},
         "involvedObject":{"kind":"Pod","namespace":"shop","name":"web-1","uid":"u1","apiVersion":"v1",
                           "resourceVersion":"7","fieldPath":"spec.containers{app}"},
         "reason":"Scheduled","reportingComponent":"berth-scheduler","source":{"component":"berth"},
         "type":"Normal"}
        """);
    FieldSelector selector = FieldSelector.parse(
        "involvedObject.kind=Pod,involvedObject.name=web-1,reason=Scheduled,source=berth,type=Normal,"
            + "reportingComponent=berth-scheduler,involvedObject.fieldPath=spec.containers{app}");

    FieldLabels.validate(selector, "", "events");
    assertThat(selector.matches(FieldLabels.fieldValues("", "events", event))).isTrue();
    assertThat(FieldSelector.parse("involvedObject.uid=u2").matches(FieldLabels.fieldValues("", "events", event)))
        .isFalse();
  }

  @Test
  void eventsV1FieldsComeFromRegarding() {
    JsonNode event = json("""
        {"metadata":{"name":"e","namespace":"shop"},
         "regarding":{"kind":"Pod","name":"web-1","namespace":"shop"},
         "reason":"FailedScheduling","reportingController":"berth-scheduler","type":"Warning"}
        """);
    FieldSelector selector =
        FieldSelector.parse("regarding.kind=Pod,regarding.name=web-1,reportingController=berth-scheduler");

    FieldLabels.validate(selector, "events.k8s.io", "events");
    assertThat(selector.matches(FieldLabels.fieldValues("events.k8s.io", "events", event))).isTrue();
  }

  @Test
  void replicaSetReplicasReadAsIntegerTextDefaultingToZero() {
    JsonNode scaledDown = json("{\"metadata\":{\"name\":\"rs\"},\"status\":{}}");
    JsonNode three = json("{\"metadata\":{\"name\":\"rs\"},\"status\":{\"replicas\":3}}");

    assertThat(FieldLabels.selectableFields("apps", "replicasets", scaledDown)).containsEntry("status.replicas", "0");
    assertThat(FieldSelector.parse("status.replicas!=0")
        .matches(FieldLabels.fieldValues("apps", "replicasets", three))).isTrue();
  }

  @Test
  void namespacePhaseAndSecretTypeAreSelectable() {
    JsonNode terminating = json("{\"metadata\":{\"name\":\"ns\"},\"status\":{\"phase\":\"Terminating\"}}");
    JsonNode tls = json("{\"metadata\":{\"name\":\"s\",\"namespace\":\"a\"},\"type\":\"kubernetes.io/tls\"}");

    assertThat(FieldSelector.parse("status.phase=Terminating")
        .matches(FieldLabels.fieldValues("", "namespaces", terminating))).isTrue();
    assertThat(FieldSelector.parse("type=kubernetes.io/tls")
        .matches(FieldLabels.fieldValues("", "secrets", tls))).isTrue();
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
