package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** Properties every rendered object must have, for each documented value set. */
class RenderedObjectsTest {

  /** The value sets: default, both daemons (with ServiceMonitors), a custom scheduler configuration. */
  static Stream<Named<Supplier<Rendered>>> renders() {
    return Stream.of(
        Named.of("default values", () -> HelmRender.chart().documents()),
        Named.of("both daemons", () -> HelmRender.chart().values(DeployPaths.testValues("both-daemons.yaml"))
            .documents()),
        Named.of("custom scheduler config", () -> HelmRender.chart()
            .values(DeployPaths.testValues("custom-scheduler-config.yaml")).documents()),
        Named.of("both daemons, ownerReferences enforcement, token Secret", () -> HelmRender.chart()
            .values(DeployPaths.testValues("both-daemons.yaml"))
            .set("rbac.ownerReferencesPermissionEnforcement", "true")
            .set("metrics.serviceMonitor.authorizationSecret.name", "prometheus-token").documents()));
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyDocumentParsesIntoTheFabric8ModelWithNoUnknownField(Supplier<Rendered> render) {
    Rendered rendered = render.get();

    assertThat(rendered.documents()).isNotEmpty();
    for (JsonNode doc : rendered.documents()) {
      if (Rendered.kind(doc).equals("ServiceMonitor")) {
        // a Prometheus Operator CRD, not in fabric8's model: checked field by field instead
        assertServiceMonitor(doc);
      } else {
        StrictModel.parse(doc);
      }
    }
  }

  private static void assertServiceMonitor(JsonNode doc) {
    assertThat(doc.path("apiVersion").asString()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(doc.path("spec").propertyNames()).containsExactlyInAnyOrder("namespaceSelector", "selector",
        "endpoints");
    JsonNode endpoint = doc.path("spec").path("endpoints").path(0);
    assertThat(endpoint.propertyNames()).containsExactlyInAnyOrder("port", "path", "scheme", "interval",
        "scrapeTimeout", endpoint.has("authorization") ? "authorization" : "bearerTokenFile", "tlsConfig");
    if (endpoint.has("authorization")) {
      assertThat(endpoint.path("authorization").path("type").asString()).isEqualTo("Bearer");
      assertThat(endpoint.path("authorization").path("credentials").propertyNames())
          .containsExactlyInAnyOrder("name", "key");
    }
    assertThat(endpoint.path("scheme").asString()).isEqualTo("https");
    assertThat(endpoint.path("tlsConfig").propertyNames()).containsExactlyInAnyOrder("insecureSkipVerify",
        "serverName");
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyPodAndContainerIsRestricted(Supplier<Rendered> render) {
    Rendered rendered = render.get();

    List<JsonNode> deployments = rendered.ofKind("Deployment");
    assertThat(deployments).isNotEmpty();
    for (JsonNode doc : deployments) {
      Deployment deployment = StrictModel.parse(doc);
      String id = Rendered.id(doc);
      PodSpec pod = deployment.getSpec().getTemplate().getSpec();
      PodSecurityContext psc = pod.getSecurityContext();
      assertThat(psc).as("%s pod securityContext", id).isNotNull();
      assertThat(psc.getRunAsNonRoot()).as("%s runAsNonRoot", id).isTrue();
      assertThat(psc.getRunAsUser()).as("%s runAsUser", id).isNotNull().isPositive();
      assertThat(psc.getRunAsGroup()).as("%s runAsGroup", id).isNotNull().isPositive();
      assertThat(psc.getSeccompProfile().getType()).as("%s seccompProfile", id).isEqualTo("RuntimeDefault");
      assertThat(pod.getHostNetwork()).as("%s hostNetwork", id).isNotEqualTo(Boolean.TRUE);
      List<Container> containers = new ArrayList<>(pod.getContainers());
      if (pod.getInitContainers() != null) {
        containers.addAll(pod.getInitContainers());
      }
      for (Container c : containers) {
        SecurityContext sc = c.getSecurityContext();
        assertThat(sc).as("%s container %s securityContext", id, c.getName()).isNotNull();
        assertThat(sc.getAllowPrivilegeEscalation()).as("%s %s allowPrivilegeEscalation", id, c.getName())
            .isFalse();
        assertThat(sc.getCapabilities().getDrop()).as("%s %s capabilities.drop", id, c.getName())
            .containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).as("%s %s capabilities.add", id, c.getName())
            .isNullOrEmpty();
        assertThat(sc.getReadOnlyRootFilesystem()).as("%s %s readOnlyRootFilesystem", id, c.getName()).isTrue();
        assertThat(sc.getPrivileged()).as("%s %s privileged", id, c.getName()).isNotEqualTo(Boolean.TRUE);
        assertThat(sc.getRunAsUser() == null || sc.getRunAsUser() != 0L).as("%s %s runAsUser is not 0", id,
            c.getName()).isTrue();
        String tmpVolume = c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals("/tmp"))
            .map(VolumeMount::getName).findFirst()
            .orElseThrow(() -> new AssertionError(id + " " + c.getName() + " mounts nothing at /tmp"));
        Volume tmp = pod.getVolumes().stream().filter(v -> v.getName().equals(tmpVolume)).findFirst()
            .orElseThrow();
        assertThat(tmp.getEmptyDir()).as("%s volume %s", id, tmpVolume).isNotNull();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("renders")
  void everyObjectCarriesTheRecommendedLabels(Supplier<Rendered> render) {
    Rendered rendered = render.get();

    for (JsonNode doc : rendered.documents()) {
      assertRecommendedLabels(Rendered.id(doc), doc.path("metadata").path("labels"));
      if (Rendered.kind(doc).equals("Deployment")) {
        assertRecommendedLabels(Rendered.id(doc) + " pod template",
            doc.path("spec").path("template").path("metadata").path("labels"));
      }
    }
  }

  private static void assertRecommendedLabels(String what, JsonNode labels) {
    assertThat(labels.propertyNames()).as("%s labels", what).contains("app.kubernetes.io/name",
        "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/component",
        "app.kubernetes.io/managed-by", "helm.sh/chart");
    assertThat(labels.path("app.kubernetes.io/instance").asString()).as("%s instance label", what)
        .isEqualTo(HelmRender.RELEASE);
    assertThat(labels.path("app.kubernetes.io/managed-by").asString()).as("%s managed-by", what)
        .isEqualTo("Helm");
  }

  @Test
  void clusterScopedNamesStartWithTheReleaseName() {
    for (String release : List.of("berth", "team-a", "prod-berth")) {
      Rendered rendered = HelmRender.chart().release(release).values(DeployPaths.testValues("both-daemons.yaml"))
          .documents();

      assertThat(rendered.clusterScoped()).as("cluster-scoped objects of release %s", release).isNotEmpty()
          .allSatisfy(doc -> assertThat(Rendered.name(doc)).as(Rendered.id(doc)).startsWith(release + "-"));
      // bindings refer to the release's own ClusterRoles
      for (JsonNode binding : rendered.ofKind("ClusterRoleBinding")) {
        assertThat(binding.path("roleRef").path("name").asString()).startsWith(release + "-");
      }
    }
  }

  @Test
  void twoReleasesShareNoClusterScopedName() {
    Set<String> first = clusterScopedIds(HelmRender.chart().release("berth"));
    Set<String> second = clusterScopedIds(HelmRender.chart().release("berth-canary"));
    Set<String> third = clusterScopedIds(HelmRender.chart().release("other").namespace("berth-system"));

    assertThat(first).isNotEmpty().doesNotContainAnyElementsOf(second).doesNotContainAnyElementsOf(third);
    assertThat(second).isNotEmpty().doesNotContainAnyElementsOf(third);
  }

  private static Set<String> clusterScopedIds(HelmRender render) {
    Set<String> ids = new HashSet<>();
    render.values(DeployPaths.testValues("both-daemons.yaml")).documents().clusterScoped()
        .forEach(d -> ids.add(Rendered.id(d)));
    return ids;
  }

  @Test
  void leasesAreReachableOnlyThroughNamespacedRolesLimitedByResourceNames() {
    Rendered rendered = HelmRender.chart().namespace("berth-system")
        .values(DeployPaths.testValues("both-daemons.yaml")).documents();
    Map<String, String> leaseOfRole = Map.of(
        "berth-scheduler-leader-election", "berth-scheduler",
        "berth-controller-manager-leader-election", "berth-controller-manager");

    assertThat(rendered.ofKind("Role")).extracting(Rendered::name)
        .containsExactlyInAnyOrderElementsOf(leaseOfRole.keySet());
    for (JsonNode doc : rendered.ofKind("Role")) {
      Role role = StrictModel.parse(doc);
      assertThat(role.getMetadata().getNamespace()).isEqualTo("berth-system");
      String lease = leaseOfRole.get(role.getMetadata().getName());
      for (PolicyRule rule : role.getRules()) {
        assertThat(rule.getApiGroups()).containsExactly("coordination.k8s.io");
        assertThat(rule.getResources()).containsExactly("leases");
        if (rule.getVerbs().contains("create")) {
          // create cannot be limited by name; the rule holds nothing else
          assertThat(rule.getVerbs()).containsExactly("create");
          assertThat(rule.getResourceNames()).isNullOrEmpty();
        } else {
          assertThat(rule.getResourceNames()).as("%s resourceNames", role.getMetadata().getName())
              .containsExactly(lease);
          assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "update");
        }
      }
    }
    for (JsonNode doc : rendered.ofKind("ClusterRole")) {
      ClusterRole role = StrictModel.parse(doc);
      assertThat(role.getRules()).as("%s grants nothing on leases", role.getMetadata().getName())
          .noneMatch(r -> r.getResources() != null && r.getResources().contains("leases"));
    }
  }

  @Test
  void clusterRolesGrantNoWildcardAndNoSecrets() {
    Rendered rendered = HelmRender.chart().values(DeployPaths.testValues("both-daemons.yaml"))
        .set("rbac.ownerReferencesPermissionEnforcement", "true").documents();

    for (JsonNode doc : rendered.ofKind("ClusterRole")) {
      ClusterRole role = StrictModel.parse(doc);
      for (PolicyRule rule : role.getRules()) {
        List<String> everything = new ArrayList<>(rule.getVerbs());
        if (rule.getResources() != null) {
          everything.addAll(rule.getResources());
          assertThat(rule.getResources()).as(role.getMetadata().getName()).doesNotContain("secrets");
        }
        if (rule.getApiGroups() != null) {
          everything.addAll(rule.getApiGroups());
        }
        assertThat(everything).as("%s rule %s", role.getMetadata().getName(), rule).doesNotContain("*");
      }
    }
  }

  @Test
  void serviceAccountsAreTheOnesTheDeploymentsRunAsAndTheBindingsName() {
    Rendered rendered = HelmRender.chart().values(DeployPaths.testValues("both-daemons.yaml")).documents();

    for (String daemon : List.of("berth-scheduler", "berth-controller-manager")) {
      Deployment deployment = StrictModel.parse(rendered.get("Deployment", daemon));
      assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(daemon);
      rendered.get("ServiceAccount", daemon);
      JsonNode binding = rendered.get("ClusterRoleBinding", daemon);
      assertThat(binding.path("subjects").path(0).path("name").asString()).isEqualTo(daemon);
      assertThat(binding.path("subjects").path(0).path("namespace").asString()).isEqualTo(HelmRender.NAMESPACE);
      JsonNode roleBinding = rendered.get("RoleBinding", daemon + "-leader-election");
      assertThat(roleBinding.path("subjects").path(0).path("name").asString()).isEqualTo(daemon);
    }
  }
}
