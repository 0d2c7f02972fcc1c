package io.berth.embedded.defaults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class PodApiDefaultsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-01T10:00:00.750Z"), ZoneOffset.UTC);
  private static final ApiDefaults DEFAULTS = new ApiDefaults(CLOCK);
  private static final PriorityClassLookup NO_CLASSES = PriorityClassLookup.none();

  private static ObjectNode minimalPod() {
    return obj("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop"},
         "spec":{"containers":[{"name":"app","image":"nginx:1.25","ports":[{"containerPort":80}]}]}}""");
  }

  @Test
  void minimalPodGetsUpstreamSpecDefaults() {
    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", minimalPod(), NO_CLASSES).path("spec");

    assertThat(spec.path("schedulerName").asString()).isEqualTo("default-scheduler");
    assertThat(spec.path("restartPolicy").asString()).isEqualTo("Always");
    assertThat(spec.path("terminationGracePeriodSeconds").asInt()).isEqualTo(30);
    assertThat(spec.path("dnsPolicy").asString()).isEqualTo("ClusterFirst");
    assertThat(spec.path("securityContext")).isEqualTo(json("{}"));
    assertThat(spec.path("enableServiceLinks").asBoolean()).isTrue();
    assertThat(spec.path("priority").isInt()).isTrue();
    assertThat(spec.path("priority").asInt()).isZero();
    assertThat(spec.path("preemptionPolicy").asString()).isEqualTo("PreemptLowerPriority");
    assertThat(spec.path("containers").get(0)).isEqualTo(json("""
        {"name":"app","image":"nginx:1.25","ports":[{"containerPort":80,"protocol":"TCP"}],
         "imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log",
         "terminationMessagePolicy":"File"}"""));
  }

  @Test
  void createSetsPendingPhaseAndQosClass() {
    JsonNode status = DEFAULTS.applyOnCreate("", "pods", minimalPod(), NO_CLASSES).path("status");

    assertThat(status).isEqualTo(json("{\"phase\":\"Pending\",\"qosClass\":\"BestEffort\"}"));
  }

  @Test
  void defaultTolerationsForNotReadyAndUnreachableAreAdded() {
    JsonNode tolerations = DEFAULTS.applyOnCreate("", "pods", minimalPod(), NO_CLASSES).at("/spec/tolerations");

    assertThat(tolerations).isEqualTo(json("""
        [{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
         {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]"""));
  }

  @Test
  void existingNotReadyTolerationIsKeptAndOnlyUnreachableIsAdded() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).set("tolerations", json("""
        [{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":10}]"""));

    JsonNode tolerations = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).at("/spec/tolerations");

    assertThat(tolerations).hasSize(2);
    assertThat(tolerations.get(0).path("tolerationSeconds").asInt()).isEqualTo(10);
    assertThat(tolerations.get(1).path("key").asString()).isEqualTo("node.kubernetes.io/unreachable");
  }

  @Test
  void wildcardTolerationCoversBothDefaults() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).set("tolerations", json("[{\"operator\":\"Exists\"}]"));

    JsonNode tolerations = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).at("/spec/tolerations");

    assertThat(tolerations).isEqualTo(json("[{\"operator\":\"Exists\"}]"));
  }

  @Test
  void setValuesAreNotOverwritten() {
    ObjectNode pod = obj("""
        {"kind":"Pod","metadata":{"name":"p"},
         "spec":{"schedulerName":"berth","restartPolicy":"Never","terminationGracePeriodSeconds":0,
                 "dnsPolicy":"Default","enableServiceLinks":false,"securityContext":{"runAsUser":1000},
                 "containers":[{"name":"a","image":"nginx","imagePullPolicy":"Never",
                   "terminationMessagePath":"/tmp/t","terminationMessagePolicy":"FallbackToLogsOnError",
                   "ports":[{"containerPort":53,"protocol":"UDP"}]}]}}""");

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).path("spec");

    assertThat(spec.path("schedulerName").asString()).isEqualTo("berth");
    assertThat(spec.path("restartPolicy").asString()).isEqualTo("Never");
    assertThat(spec.path("terminationGracePeriodSeconds").asInt()).isZero();
    assertThat(spec.path("dnsPolicy").asString()).isEqualTo("Default");
    assertThat(spec.path("enableServiceLinks").asBoolean()).isFalse();
    assertThat(spec.path("securityContext")).isEqualTo(json("{\"runAsUser\":1000}"));
    JsonNode container = spec.path("containers").get(0);
    assertThat(container.path("imagePullPolicy").asString()).isEqualTo("Never");
    assertThat(container.path("terminationMessagePath").asString()).isEqualTo("/tmp/t");
    assertThat(container.path("terminationMessagePolicy").asString()).isEqualTo("FallbackToLogsOnError");
    assertThat(container.at("/ports/0/protocol").asString()).isEqualTo("UDP");
  }

  @Test
  void namedPriorityClassGivesPriorityAndPreemptionPolicy() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("priorityClassName", "batch-low");
    PriorityClassLookup classes = PriorityClassLookup.of(List.of(new PriorityClassInfo("batch-low", -10, "Never", false)));

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", pod, classes).path("spec");

    assertThat(spec.path("priority").asInt()).isEqualTo(-10);
    assertThat(spec.path("preemptionPolicy").asString()).isEqualTo("Never");
  }

  @Test
  void missingPriorityClassIsRefusedNamingTheField() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("priorityClassName", "gold");

    assertThatThrownBy(() -> DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES))
        .isInstanceOfSatisfying(AdmissionException.class,
            e -> assertThat(e.field()).isEqualTo("spec.priorityClassName"))
        .hasMessage("no PriorityClass with name gold was found");
  }

  @Test
  void globalDefaultClassAppliesToUnnamedPodsAndLowestValueWins() {
    PriorityClassLookup classes = PriorityClassLookup.of(List.of(
        new PriorityClassInfo("default-high", 500, null, true),
        new PriorityClassInfo("default-low", 100, null, true),
        new PriorityClassInfo("other", 1000, null, false)));

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", minimalPod(), classes).path("spec");

    assertThat(spec.path("priorityClassName").asString()).isEqualTo("default-low");
    assertThat(spec.path("priority").asInt()).isEqualTo(100);
    assertThat(spec.path("preemptionPolicy").asString()).isEqualTo("PreemptLowerPriority");
  }

  @Test
  void systemClassesResolveToTheirBootstrapValues() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("priorityClassName", "system-node-critical");

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", pod, PriorityClassLookup.systemClasses()).path("spec");

    assertThat(spec.path("priority").asInt()).isEqualTo(2_000_001_000);
  }

  @Test
  void clientSetPriorityThatDiffersFromTheClassIsRefused() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("priority", 7);

    assertThatThrownBy(() -> DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES))
        .isInstanceOfSatisfying(AdmissionException.class, e -> assertThat(e.field()).isEqualTo("spec.priority"))
        .hasMessageContaining("the integer value of priority (7) must not be provided");
  }

  @Test
  void clientSetPriorityEqualToTheClassIsAccepted() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("priority", 0);

    assertThat(DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).at("/spec/priority").asInt()).isZero();
  }

  @Test
  void clientSetPreemptionPolicyThatDiffersFromTheClassIsRefused() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).put("preemptionPolicy", "Never");

    assertThatThrownBy(() -> DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES))
        .isInstanceOfSatisfying(AdmissionException.class,
            e -> assertThat(e.field()).isEqualTo("spec.preemptionPolicy"));
  }

  @Test
  void updateKeepsPriorityFromTheStoredPodAndDoesNotResolveClasses() {
    ObjectNode stored = DEFAULTS.applyOnCreate("", "pods", minimalPod(), PriorityClassLookup.of(
        List.of(new PriorityClassInfo("d", 42, null, true))));
    ObjectNode update = minimalPod();

    ObjectNode updated = DEFAULTS.applyOnUpdate("", "pods", update, stored);

    assertThat(updated.at("/spec/priority").asInt()).isEqualTo(42);
    assertThat(updated.at("/spec/preemptionPolicy").asString()).isEqualTo("PreemptLowerPriority");
    assertThat(updated.at("/spec/schedulerName").asString()).isEqualTo("default-scheduler");
    assertThat(updated.at("/spec/tolerations")).hasSize(2);
    assertThat(updated.has("status")).isFalse();
  }

  @Test
  void requestsDefaultToLimitsAndMakeThePodGuaranteed() {
    ObjectNode pod = obj("""
        {"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"a:1",
          "resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}]}}""");

    ObjectNode created = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES);

    assertThat(created.at("/spec/containers/0/resources/requests"))
        .isEqualTo(json("{\"cpu\":\"500m\",\"memory\":\"128Mi\"}"));
    assertThat(created.at("/status/qosClass").asString()).isEqualTo("Guaranteed");
  }

  @Test
  void explicitRequestIsKeptWhenDefaultingFromLimits() {
    ObjectNode pod = obj("""
        {"kind":"Pod","spec":{"containers":[{"name":"a","image":"a:1",
          "resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"500m","memory":"1Gi"}}}]}}""");

    ObjectNode created = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES);

    assertThat(created.at("/spec/containers/0/resources/requests"))
        .isEqualTo(json("{\"cpu\":\"100m\",\"memory\":\"1Gi\"}"));
    assertThat(created.at("/status/qosClass").asString()).isEqualTo("Burstable");
  }

  @Test
  void podTemplateStyleDefaultsDoNotAddPodOnlyFields() {
    ObjectNode deployment = obj("""
        {"kind":"Deployment","spec":{"template":{"spec":{"containers":[{"name":"a","image":"a",
          "resources":{"limits":{"cpu":"1"}}}]}}}}""");

    JsonNode templateSpec = DEFAULTS.applyOnCreate("apps", "deployments", deployment, NO_CLASSES)
        .at("/spec/template/spec");

    assertThat(templateSpec.has("enableServiceLinks")).isFalse();
    assertThat(templateSpec.has("tolerations")).isFalse();
    assertThat(templateSpec.has("priority")).isFalse();
    assertThat(templateSpec.at("/containers/0/resources").has("requests")).isFalse();
    assertThat(templateSpec.path("schedulerName").asString()).isEqualTo("default-scheduler");
  }

  @Test
  void hostNetworkPodGetsHostPortsEqualToContainerPorts() {
    ObjectNode pod = obj("""
        {"kind":"Pod","spec":{"hostNetwork":true,"containers":[{"name":"a","image":"a",
          "ports":[{"containerPort":9100},{"containerPort":9200,"hostPort":9300}]}]}}""");

    JsonNode ports = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).at("/spec/containers/0/ports");

    assertThat(ports.get(0).path("hostPort").asInt()).isEqualTo(9100);
    assertThat(ports.get(1).path("hostPort").asInt()).isEqualTo(9300);
  }

  @Test
  void gatedPodGetsSchedulingGatedConditionStampedByTheClock() {
    ObjectNode pod = minimalPod();
    ((ObjectNode) pod.get("spec")).set("schedulingGates", json("[{\"name\":\"example.com/quota\"}]"));

    JsonNode conditions = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).at("/status/conditions");

    assertThat(conditions).isEqualTo(json("""
        [{"type":"PodScheduled","status":"False","lastTransitionTime":"2024-05-01T10:00:00Z",
          "reason":"SchedulingGated","message":"Scheduling is blocked due to non-empty scheduling gates"}]"""));
  }

  @Test
  void ungatedPodGetsNoCondition() {
    assertThat(DEFAULTS.applyOnCreate("", "pods", minimalPod(), NO_CLASSES).at("/status").has("conditions")).isFalse();
  }

  @Test
  void probesVolumesAndEnvFieldRefsAreDefaulted() {
    ObjectNode pod = obj("""
        {"kind":"Pod","spec":{
          "containers":[{"name":"a","image":"a",
            "livenessProbe":{"httpGet":{"port":8080}},
            "readinessProbe":{"exec":{"command":["true"]},"periodSeconds":5},
            "env":[{"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}}]}],
          "volumes":[{"name":"scratch"},{"name":"cfg","configMap":{"name":"c"}},
                     {"name":"s","secret":{"secretName":"s","defaultMode":256}},
                     {"name":"h","hostPath":{"path":"/var"}},
                     {"name":"tok","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}}]}}""");

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).path("spec");

    assertThat(spec.at("/containers/0/livenessProbe")).isEqualTo(json("""
        {"httpGet":{"port":8080,"path":"/","scheme":"HTTP"},
         "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}"""));
    assertThat(spec.at("/containers/0/readinessProbe/periodSeconds").asInt()).isEqualTo(5);
    assertThat(spec.at("/containers/0/env/0/valueFrom/fieldRef/apiVersion").asString()).isEqualTo("v1");
    assertThat(spec.at("/volumes/0")).isEqualTo(json("{\"name\":\"scratch\",\"emptyDir\":{}}"));
    assertThat(spec.at("/volumes/1/configMap/defaultMode").asInt()).isEqualTo(420);
    assertThat(spec.at("/volumes/2/secret/defaultMode").asInt()).isEqualTo(256);
    assertThat(spec.at("/volumes/3/hostPath/type").asString()).isEmpty();
    assertThat(spec.at("/volumes/3/hostPath").has("type")).isTrue();
    assertThat(spec.at("/volumes/4/projected/defaultMode").asInt()).isEqualTo(420);
    assertThat(spec.at("/volumes/4/projected/sources/0/serviceAccountToken/expirationSeconds").asInt())
        .isEqualTo(3600);
  }

  @Test
  void initAndEphemeralContainersAreDefaultedToo() {
    ObjectNode pod = obj("""
        {"kind":"Pod","spec":{"initContainers":[{"name":"i","image":"busybox"}],
          "containers":[{"name":"a","image":"a:1"}],
          "ephemeralContainers":[{"name":"dbg","image":"busybox:latest"}]}}""");

    JsonNode spec = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES).path("spec");

    assertThat(spec.at("/initContainers/0/imagePullPolicy").asString()).isEqualTo("Always");
    assertThat(spec.at("/initContainers/0/terminationMessagePolicy").asString()).isEqualTo("File");
    assertThat(spec.at("/ephemeralContainers/0/imagePullPolicy").asString()).isEqualTo("Always");
    assertThat(spec.at("/ephemeralContainers/0/terminationMessagePath").asString()).isEqualTo("/dev/termination-log");
  }

  @Test
  void argumentIsNotMutated() {
    ObjectNode pod = minimalPod();
    ObjectNode before = pod.deepCopy();

    ObjectNode created = DEFAULTS.applyOnCreate("", "pods", pod, NO_CLASSES);

    assertThat(pod).isEqualTo(before);
    assertThat(created).isNotEqualTo(before);
  }

  private static ObjectNode obj(String text) {
    return (ObjectNode) JSON.readTree(text);
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
