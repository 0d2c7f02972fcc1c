package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class CoreObjectApiDefaultsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final ApiDefaults DEFAULTS = new ApiDefaults(Clock.systemUTC());
  private static final PriorityClassLookup NO_CLASSES = PriorityClassLookup.none();

  @Test
  void serviceGetsClusterIpTypeNoAffinityAndTcpPortsTargetingThePort() {
    ObjectNode service = obj("""
        {"kind":"Service","spec":{"selector":{"app":"web"},"ports":[{"port":80},{"port":443,"targetPort":"https"}]}}""");

    JsonNode spec = DEFAULTS.applyOnCreate("", "services", service, NO_CLASSES).path("spec");

    assertThat(spec.path("type").asString()).isEqualTo("ClusterIP");
    assertThat(spec.path("sessionAffinity").asString()).isEqualTo("None");
    assertThat(spec.path("internalTrafficPolicy").asString()).isEqualTo("Cluster");
    assertThat(spec.has("externalTrafficPolicy")).isFalse();
    assertThat(spec.path("ports")).isEqualTo(json("""
        [{"port":80,"protocol":"TCP","targetPort":80},{"port":443,"targetPort":"https","protocol":"TCP"}]"""));
  }

  @Test
  void loadBalancerServiceGetsExternalPolicyAndNodePortAllocation() {
    ObjectNode service = obj("""
        {"kind":"Service","spec":{"type":"LoadBalancer","ports":[{"port":80,"targetPort":0}]},
         "status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"},{"hostname":"lb.example"}]}}}""");

    ObjectNode defaulted = DEFAULTS.applyOnCreate("", "services", service, NO_CLASSES);

    assertThat(defaulted.at("/spec/externalTrafficPolicy").asString()).isEqualTo("Cluster");
    assertThat(defaulted.at("/spec/allocateLoadBalancerNodePorts").asBoolean()).isTrue();
    assertThat(defaulted.at("/spec/ports/0/targetPort").asInt()).isEqualTo(80);
    assertThat(defaulted.at("/status/loadBalancer/ingress/0/ipMode").asString()).isEqualTo("VIP");
    assertThat(defaulted.at("/status/loadBalancer/ingress/1").has("ipMode")).isFalse();
  }

  @Test
  void clientIpAffinityGetsTheDefaultTimeoutAndNoneDropsTheConfig() {
    ObjectNode clientIp = obj("{\"kind\":\"Service\",\"spec\":{\"sessionAffinity\":\"ClientIP\"}}");
    ObjectNode none = obj("""
        {"kind":"Service","spec":{"sessionAffinityConfig":{"clientIP":{"timeoutSeconds":5}}}}""");

    assertThat(DEFAULTS.applyOnCreate("", "services", clientIp, NO_CLASSES).at("/spec/sessionAffinityConfig"))
        .isEqualTo(json("{\"clientIP\":{\"timeoutSeconds\":10800}}"));
    assertThat(DEFAULTS.applyOnCreate("", "services", none, NO_CLASSES).at("/spec").has("sessionAffinityConfig"))
        .isFalse();
  }

  @Test
  void externalNameServiceGetsNoTrafficPolicies() {
    ObjectNode service = obj("{\"kind\":\"Service\",\"spec\":{\"type\":\"ExternalName\",\"externalName\":\"x.example\"}}");

    JsonNode spec = DEFAULTS.applyOnCreate("", "services", service, NO_CLASSES).path("spec");

    assertThat(spec.has("internalTrafficPolicy")).isFalse();
    assertThat(spec.has("externalTrafficPolicy")).isFalse();
  }

  @Test
  void persistentVolumeClaimGetsFilesystemModeAndPendingPhase() {
    ObjectNode claim = obj("{\"kind\":\"PersistentVolumeClaim\",\"spec\":{\"accessModes\":[\"ReadWriteOnce\"]}}");

    ObjectNode defaulted = DEFAULTS.applyOnCreate("", "persistentvolumeclaims", claim, NO_CLASSES);

    assertThat(defaulted.at("/spec/volumeMode").asString()).isEqualTo("Filesystem");
    assertThat(defaulted.at("/status/phase").asString()).isEqualTo("Pending");
  }

  @Test
  void blockClaimKeepsItsMode() {
    ObjectNode claim = obj("{\"kind\":\"PersistentVolumeClaim\",\"spec\":{\"volumeMode\":\"Block\"},\"status\":{\"phase\":\"Bound\"}}");

    ObjectNode defaulted = DEFAULTS.applyOnUpdate("", "persistentvolumeclaims", claim, claim);

    assertThat(defaulted.at("/spec/volumeMode").asString()).isEqualTo("Block");
    assertThat(defaulted.at("/status/phase").asString()).isEqualTo("Bound");
  }

  @Test
  void persistentVolumeGetsRetainPolicyFilesystemAndPending() {
    ObjectNode volume = obj("{\"kind\":\"PersistentVolume\",\"spec\":{\"capacity\":{\"storage\":\"1Gi\"}}}");

    ObjectNode defaulted = DEFAULTS.applyOnCreate("", "persistentvolumes", volume, NO_CLASSES);

    assertThat(defaulted.at("/spec/persistentVolumeReclaimPolicy").asString()).isEqualTo("Retain");
    assertThat(defaulted.at("/spec/volumeMode").asString()).isEqualTo("Filesystem");
    assertThat(defaulted.at("/status/phase").asString()).isEqualTo("Pending");
  }

  @Test
  void namespaceCreateGetsKubernetesFinalizerNameLabelAndActivePhase() {
    ObjectNode namespace = obj("{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"shop\"}}");

    ObjectNode created = DEFAULTS.applyOnCreate("", "namespaces", namespace, NO_CLASSES);

    assertThat(created.at("/spec/finalizers")).isEqualTo(json("[\"kubernetes\"]"));
    assertThat(created.at("/metadata/labels/kubernetes.io~1metadata.name").asString()).isEqualTo("shop");
    assertThat(created.at("/status/phase").asString()).isEqualTo("Active");
  }

  @Test
  void namespaceCreateAppendsKubernetesFinalizerOnceAndUpdateDoesNotAddIt() {
    ObjectNode withOther = obj("{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"finalizers\":[\"x\"]}}");
    ObjectNode withKubernetes = obj("{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"finalizers\":[\"kubernetes\"]}}");
    ObjectNode withoutAny = obj("{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"finalizers\":[]}}");

    assertThat(DEFAULTS.applyOnCreate("", "namespaces", withOther, NO_CLASSES).at("/spec/finalizers"))
        .isEqualTo(json("[\"x\",\"kubernetes\"]"));
    assertThat(DEFAULTS.applyOnCreate("", "namespaces", withKubernetes, NO_CLASSES).at("/spec/finalizers"))
        .isEqualTo(json("[\"kubernetes\"]"));
    assertThat(DEFAULTS.applyOnUpdate("", "namespaces", withoutAny, withKubernetes).at("/spec/finalizers"))
        .isEqualTo(json("[]"));
  }

  @Test
  void nodeAllocatableDefaultsToCapacityAndIsOtherwiseUntouched() {
    ObjectNode node = obj("{\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},\"status\":{\"capacity\":{\"cpu\":\"4\",\"pods\":\"110\"}}}");
    ObjectNode withAllocatable = obj("{\"kind\":\"Node\",\"status\":{\"capacity\":{\"cpu\":\"4\"},\"allocatable\":{\"cpu\":\"3\"}}}");

    assertThat(DEFAULTS.applyOnCreate("", "nodes", node, NO_CLASSES).at("/status/allocatable"))
        .isEqualTo(json("{\"cpu\":\"4\",\"pods\":\"110\"}"));
    assertThat(DEFAULTS.applyOnCreate("", "nodes", withAllocatable, NO_CLASSES)).isEqualTo(withAllocatable);
    ObjectNode bare = obj("{\"kind\":\"Node\",\"metadata\":{\"name\":\"n2\"}}");
    assertThat(DEFAULTS.applyOnCreate("", "nodes", bare, NO_CLASSES)).isEqualTo(bare);
  }

  @Test
  void secretTypeDefaultsToOpaqueAndPriorityClassPolicyToPreemptLowerPriority() {
    assertThat(DEFAULTS.applyOnCreate("", "secrets", obj("{\"kind\":\"Secret\"}"), NO_CLASSES).path("type").asString())
        .isEqualTo("Opaque");
    assertThat(DEFAULTS.applyOnCreate("scheduling.k8s.io", "priorityclasses",
        obj("{\"kind\":\"PriorityClass\",\"value\":10}"), NO_CLASSES).path("preemptionPolicy").asString())
        .isEqualTo("PreemptLowerPriority");
  }

  @Test
  void unknownResourceIsReturnedAsAnEqualCopy() {
    ObjectNode configMap = obj("{\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"}}");

    ObjectNode defaulted = DEFAULTS.applyOnCreate("", "configmaps", configMap, NO_CLASSES);

    assertThat(defaulted).isEqualTo(configMap).isNotSameAs(configMap);
  }

  @Test
  void priorityClassInfoIsReadFromAnObject() {
    PriorityClassInfo info = PriorityClassInfo.fromObject(json("""
        {"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},
         "value":1000,"globalDefault":true}"""));

    assertThat(info).isEqualTo(new PriorityClassInfo("high", 1000, "PreemptLowerPriority", true));
  }

  private static ObjectNode obj(String text) {
    return (ObjectNode) JSON.readTree(text);
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
