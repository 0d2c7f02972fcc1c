package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class WorkloadApiDefaultsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final ApiDefaults DEFAULTS = new ApiDefaults(Clock.systemUTC());
  private static final PriorityClassLookup NO_CLASSES = PriorityClassLookup.none();
  private static final String TEMPLATE = """
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"web:2"}]}}""";

  @Test
  void deploymentGetsReplicasStrategyHistoryAndDeadline() {
    ObjectNode deployment = obj("{\"kind\":\"Deployment\",\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
        + TEMPLATE + "}}");

    JsonNode spec = DEFAULTS.applyOnCreate("apps", "deployments", deployment, NO_CLASSES).path("spec");

    assertThat(spec.path("replicas").asInt()).isEqualTo(1);
    assertThat(spec.path("strategy")).isEqualTo(json("""
        {"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}}"""));
    assertThat(spec.path("revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(spec.path("progressDeadlineSeconds").asInt()).isEqualTo(600);
    assertThat(spec.at("/template/spec/restartPolicy").asString()).isEqualTo("Always");
    assertThat(spec.at("/template/spec/containers/0/imagePullPolicy").asString()).isEqualTo("IfNotPresent");
  }

  @Test
  void deploymentWithZeroReplicasAndRecreateKeepsThem() {
    ObjectNode deployment = obj("""
        {"kind":"Deployment","spec":{"replicas":0,"strategy":{"type":"Recreate"},"revisionHistoryLimit":0}}""");

    JsonNode spec = DEFAULTS.applyOnUpdate("apps", "deployments", deployment, deployment).path("spec");

    assertThat(spec.path("replicas").asInt()).isZero();
    assertThat(spec.path("strategy")).isEqualTo(json("{\"type\":\"Recreate\"}"));
    assertThat(spec.path("revisionHistoryLimit").asInt()).isZero();
  }

  @Test
  void deploymentKeepsAPartialRollingUpdate() {
    ObjectNode deployment = obj("{\"kind\":\"Deployment\",\"spec\":{\"strategy\":{\"rollingUpdate\":{\"maxSurge\":0}}}}");

    JsonNode strategy = DEFAULTS.applyOnCreate("apps", "deployments", deployment, NO_CLASSES).at("/spec/strategy");

    assertThat(strategy).isEqualTo(json("""
        {"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":"25%"}}"""));
  }

  @Test
  void replicaSetGetsOneReplicaAndTemplateDefaults() {
    ObjectNode replicaSet = obj("{\"kind\":\"ReplicaSet\",\"spec\":{" + TEMPLATE + "}}");

    JsonNode spec = DEFAULTS.applyOnCreate("apps", "replicasets", replicaSet, NO_CLASSES).path("spec");

    assertThat(spec.path("replicas").asInt()).isEqualTo(1);
    assertThat(spec.at("/template/spec/schedulerName").asString()).isEqualTo("default-scheduler");
    assertThat(spec.at("/template/spec/terminationGracePeriodSeconds").asInt()).isEqualTo(30);
  }

  @Test
  void statefulSetGetsPolicyStrategyRetentionAndClaimTemplateDefaults() {
    ObjectNode statefulSet = obj("{\"kind\":\"StatefulSet\",\"spec\":{\"serviceName\":\"db\","
        + "\"volumeClaimTemplates\":[{\"metadata\":{\"name\":\"data\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]}}],"
        + TEMPLATE + "}}");

    JsonNode spec = DEFAULTS.applyOnCreate("apps", "statefulsets", statefulSet, NO_CLASSES).path("spec");

    assertThat(spec.path("podManagementPolicy").asString()).isEqualTo("OrderedReady");
    assertThat(spec.path("updateStrategy")).isEqualTo(json("{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"partition\":0}}"));
    assertThat(spec.path("persistentVolumeClaimRetentionPolicy"))
        .isEqualTo(json("{\"whenDeleted\":\"Retain\",\"whenScaled\":\"Retain\"}"));
    assertThat(spec.path("replicas").asInt()).isEqualTo(1);
    assertThat(spec.path("revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(spec.at("/volumeClaimTemplates/0/spec/volumeMode").asString()).isEqualTo("Filesystem");
    assertThat(spec.at("/volumeClaimTemplates/0/status/phase").asString()).isEqualTo("Pending");
    assertThat(spec.at("/template/spec/dnsPolicy").asString()).isEqualTo("ClusterFirst");
  }

  @Test
  void statefulSetOnDeleteStrategyGetsNoRollingUpdate() {
    ObjectNode statefulSet = obj("{\"kind\":\"StatefulSet\",\"spec\":{\"updateStrategy\":{\"type\":\"OnDelete\"}}}");

    JsonNode spec = DEFAULTS.applyOnCreate("apps", "statefulsets", statefulSet, NO_CLASSES).path("spec");

    assertThat(spec.path("updateStrategy")).isEqualTo(json("{\"type\":\"OnDelete\"}"));
  }

  @Test
  void daemonSetGetsRollingUpdateOfOneUnavailableAndNoSurge() {
    ObjectNode daemonSet = obj("{\"kind\":\"DaemonSet\",\"spec\":{" + TEMPLATE + "}}");

    JsonNode spec = DEFAULTS.applyOnCreate("apps", "daemonsets", daemonSet, NO_CLASSES).path("spec");

    assertThat(spec.path("updateStrategy"))
        .isEqualTo(json("{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge\":0}}"));
    assertThat(spec.path("revisionHistoryLimit").asInt()).isEqualTo(10);
    assertThat(spec.at("/template/spec/securityContext")).isEqualTo(json("{}"));
  }

  @Test
  void replicationControllerTakesSelectorAndLabelsFromItsTemplate() {
    ObjectNode controller = obj("{\"kind\":\"ReplicationController\",\"metadata\":{\"name\":\"rc\"},\"spec\":{"
        + TEMPLATE + "}}");

    ObjectNode defaulted = DEFAULTS.applyOnCreate("", "replicationcontrollers", controller, NO_CLASSES);

    assertThat(defaulted.at("/spec/selector")).isEqualTo(json("{\"app\":\"web\"}"));
    assertThat(defaulted.at("/metadata/labels")).isEqualTo(json("{\"app\":\"web\"}"));
    assertThat(defaulted.at("/spec/replicas").asInt()).isEqualTo(1);
  }

  private static ObjectNode obj(String text) {
    return (ObjectNode) JSON.readTree(text);
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
