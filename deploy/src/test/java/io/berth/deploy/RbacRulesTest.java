package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import tools.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The daemons' ClusterRoles grant exactly the requests Berth's code makes (each rule's comment in the template names
 * the code path), so that widening or narrowing them is a deliberate change of this list.
 */
class RbacRulesTest {

  /** "group/resource" (core group as "") to the sorted verbs, over every rule of the ClusterRole. */
  private static Map<String, Set<String>> grants(Rendered rendered, String name) {
    ClusterRole role = StrictModel.parse(rendered.get("ClusterRole", name));
    Map<String, Set<String>> grants = new TreeMap<>();
    for (PolicyRule rule : role.getRules()) {
      assertThat(rule.getResourceNames()).as("%s: cluster-wide rules name no objects", name).isNullOrEmpty();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          grants.computeIfAbsent(group + "/" + resource, k -> new TreeSet<>()).addAll(rule.getVerbs());
        }
      }
    }
    return grants;
  }

  private static Set<String> verbs(String... verbs) {
    return new TreeSet<>(Set.of(verbs));
  }

  @Test
  void schedulerClusterRoleIsWhatBerthSchedulerCalls() {
    Map<String, Set<String>> expected = new TreeMap<>(Map.ofEntries(
        Map.entry("/pods", verbs("list", "watch", "delete")),
        Map.entry("/pods/binding", verbs("create")),
        Map.entry("/pods/status", verbs("patch")),
        Map.entry("/nodes", verbs("list", "watch")),
        Map.entry("/namespaces", verbs("list", "watch")),
        Map.entry("/services", verbs("list", "watch")),
        Map.entry("/replicationcontrollers", verbs("list", "watch")),
        Map.entry("apps/replicasets", verbs("list", "watch")),
        Map.entry("apps/statefulsets", verbs("list", "watch")),
        Map.entry("policy/poddisruptionbudgets", verbs("list", "watch")),
        Map.entry("/persistentvolumeclaims", verbs("get", "list", "watch", "update")),
        Map.entry("/persistentvolumeclaims/status", verbs("update")),
        Map.entry("/persistentvolumes", verbs("list", "watch", "update")),
        Map.entry("/persistentvolumes/status", verbs("update")),
        Map.entry("storage.k8s.io/storageclasses", verbs("list", "watch")),
        Map.entry("storage.k8s.io/csinodes", verbs("list", "watch")),
        Map.entry("storage.k8s.io/csidrivers", verbs("list", "watch")),
        Map.entry("storage.k8s.io/csistoragecapacities", verbs("list", "watch")),
        Map.entry("storage.k8s.io/volumeattachments", verbs("list", "watch")),
        // events.k8s.io/v1 when the server serves it, core/v1 otherwise (KubernetesEventRecorder)
        Map.entry("/events", verbs("create", "patch")),
        Map.entry("events.k8s.io/events", verbs("create", "patch")),
        // DynamicResources (in the default profile): the claim, slice and class informers, PreBind's and
        // Unreserve's claim writes
        Map.entry("resource.k8s.io/deviceclasses", verbs("list", "watch")),
        Map.entry("resource.k8s.io/resourceslices", verbs("list", "watch")),
        Map.entry("resource.k8s.io/resourceclaims", verbs("get", "list", "watch", "update")),
        Map.entry("resource.k8s.io/resourceclaims/status", verbs("update", "patch")),
        Map.entry("authentication.k8s.io/tokenreviews", verbs("create")),
        Map.entry("authorization.k8s.io/subjectaccessreviews", verbs("create"))));

    assertThat(grants(HelmRender.chart().documents(), "berth-scheduler")).isEqualTo(expected);

    // --record-results-annotations patches pods' annotations
    Rendered annotating = HelmRender.chart().set("scheduler.recordResultsAnnotations", "true").documents();
    expected.put("/pods", verbs("get", "list", "watch", "delete", "patch"));
    assertThat(grants(annotating, "berth-scheduler")).isEqualTo(expected);
    assertThat(annotating.get("Deployment", "berth-scheduler").toString()).contains("--record-results-annotations");
    assertThat(HelmRender.chart().documents().get("Deployment", "berth-scheduler").toString())
        .doesNotContain("--record-results-annotations");
  }

  @Test
  void aProfileWithCapacitySchedulingAddsTheElasticQuotaAndPodGroupRules() {
    Map<String, Set<String>> plain = grants(HelmRender.chart().documents(), "berth-scheduler");
    Map<String, Set<String>> withQuotas = grants(HelmRender.chart()
        .set("scheduler.config.profiles[0].schedulerName", "berth-scheduler")
        .set("scheduler.config.profiles[0].plugins.multiPoint.enabled[0].name", "CapacityScheduling")
        .set("scheduler.config.profiles[0].plugins.multiPoint.disabled[0].name", "DefaultPreemption")
        .documents(), "berth-scheduler");
    Map<String, Set<String>> added = new TreeMap<>(withQuotas);
    plain.keySet().forEach(added::remove);
    assertThat(added).isEqualTo(Map.of(
        "scheduling.x-k8s.io/elasticquotas", verbs("get", "list", "watch"),
        "scheduling.x-k8s.io/elasticquotas/status", verbs("patch"),
        "scheduling.x-k8s.io/podgroups", verbs("list", "watch")));
    assertThat(plain).doesNotContainKey("scheduling.x-k8s.io/elasticquotas");
  }

  @Test
  void controllerManagerClusterRoleIsWhatBerthControllerManagerCalls() {
    Map<String, Set<String>> expected = new TreeMap<>(Map.ofEntries(
        Map.entry("apps/deployments", verbs("get", "list", "watch")),
        Map.entry("apps/deployments/status", verbs("update")),
        Map.entry("apps/replicasets", verbs("get", "list", "watch", "create", "update", "patch", "delete")),
        Map.entry("apps/replicasets/status", verbs("update")),
        Map.entry("/pods", verbs("get", "list", "watch", "create", "delete", "patch")),
        Map.entry("/events", verbs("create", "patch")),
        // resource-claim-controller (on by default): claims from templates, the pods' resourceClaimStatuses
        Map.entry("/pods/status", verbs("patch")),
        Map.entry("resource.k8s.io/resourceclaims", verbs("create", "delete", "list", "update", "watch")),
        Map.entry("resource.k8s.io/resourceclaims/status", verbs("update")),
        Map.entry("resource.k8s.io/resourceclaimtemplates", verbs("list", "watch")),
        Map.entry("authentication.k8s.io/tokenreviews", verbs("create")),
        Map.entry("authorization.k8s.io/subjectaccessreviews", verbs("create"))));

    Rendered plain = HelmRender.chart().set("controllerManager.enabled", "true").documents();
    assertThat(grants(plain, "berth-controller-manager")).isEqualTo(expected);

    Rendered enforcing = HelmRender.chart().set("controllerManager.enabled", "true")
        .set("rbac.ownerReferencesPermissionEnforcement", "true").documents();
    expected.put("apps/deployments/finalizers", verbs("update"));
    expected.put("apps/replicasets/finalizers", verbs("update"));
    expected.put("/pods/finalizers", verbs("update"));
    assertThat(grants(enforcing, "berth-controller-manager")).isEqualTo(expected);
  }

  @Test
  void podGroupGrantsFollowThePodgroupControllerAndTheGangPlugins() {
    Rendered withController = HelmRender.chart().set("controllerManager.enabled", "true")
        .set("controllerManager.controllers[0]", "*").set("controllerManager.controllers[1]", "podgroup")
        .documents();
    Map<String, Set<String>> cm = grants(withController, "berth-controller-manager");
    for (String group : List.of("scheduling.x-k8s.io", "scheduling.k8s.io")) {
      assertThat(cm).containsEntry(group + "/podgroups", verbs("get", "list", "watch"))
          .containsEntry(group + "/podgroups/status", verbs("patch"));
    }
    assertThat(grants(withController, "berth-scheduler")).as("the default profile has no gang plugin")
        .doesNotContainKeys("scheduling.x-k8s.io/podgroups", "scheduling.k8s.io/podgroups");

    Rendered gangProfile = HelmRender.chart().set("scheduler.config.profiles[0].schedulerName", "gangs")
        .set("scheduler.config.profiles[0].plugins.multiPoint.enabled[0].name", "Coscheduling").documents();
    assertThat(grants(gangProfile, "berth-scheduler"))
        .containsEntry("scheduling.x-k8s.io/podgroups", verbs("list", "watch"))
        .containsEntry("scheduling.k8s.io/podgroups", verbs("list", "watch"));
  }

  @Test
  void metricsReaderGrantsOnlyGetOnMetrics() {
    ClusterRole role = StrictModel.parse(HelmRender.chart().documents().get("ClusterRole", "berth-metrics-reader"));

    assertThat(role.getRules()).singleElement().satisfies(rule -> {
      assertThat(rule.getNonResourceURLs()).containsExactly("/metrics");
      assertThat(rule.getVerbs()).containsExactly("get");
      assertThat(rule.getResources()).isNullOrEmpty();
    });
  }

  @Test
  void debugReaderIsOffByDefaultAndGrantsOnlyTheDebugPaths() {
    assertThat(HelmRender.chart().documents().ids()).noneMatch(id -> id.contains("debug-reader"));

    Rendered rendered = HelmRender.chart().set("debug.readerClusterRole", "true")
        .set("debug.readerSubjects[0].kind", "Group").set("debug.readerSubjects[0].name", "sre")
        .set("debug.readerSubjects[0].apiGroup", "rbac.authorization.k8s.io").documents();
    ClusterRole role = StrictModel.parse(rendered.get("ClusterRole", "berth-debug-reader"));
    assertThat(role.getRules()).hasSize(2).allSatisfy(rule -> assertThat(rule.getResources()).isNullOrEmpty());
    assertThat(role.getRules().get(0).getNonResourceURLs()).containsExactly("/debug/*");
    assertThat(role.getRules().get(0).getVerbs()).containsExactly("get");
    assertThat(role.getRules().get(1).getNonResourceURLs()).containsExactly("/debug/simulate");
    assertThat(role.getRules().get(1).getVerbs()).containsExactly("post");
    JsonNode binding = rendered.get("ClusterRoleBinding", "berth-debug-reader");
    assertThat(binding.path("roleRef").path("name").asString()).isEqualTo("berth-debug-reader");
    assertThat(binding.path("subjects").path(0).path("kind").asString()).isEqualTo("Group");
    assertThat(binding.path("subjects").path(0).path("name").asString()).isEqualTo("sre");
  }

  @Test
  void noRbacWhenRbacCreateIsOff() {
    Rendered rendered = HelmRender.chart().set("controllerManager.enabled", "true").set("rbac.create", "false")
        .documents();

    assertThat(rendered.ids()).noneMatch(id -> id.startsWith("ClusterRole") || id.startsWith("Role"));
  }
}
