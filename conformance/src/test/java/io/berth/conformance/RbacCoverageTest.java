package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RbacCoverageTest {

  @TempDir
  Path dir;

  private static final List<HasMetadata> CHART = List.of(
      new ClusterRoleBuilder().withNewMetadata().withName("sched").endMetadata()
          .addToRules(new PolicyRuleBuilder().withApiGroups("").withResources("pods", "pods/binding")
              .withVerbs("get", "create").build())
          .addToRules(new PolicyRuleBuilder().withNonResourceURLs("/metrics").withVerbs("get").build()).build(),
      new ClusterRoleBindingBuilder().withNewMetadata().withName("sched").endMetadata().withNewRoleRef()
          .withKind("ClusterRole").withName("sched").withApiGroup("rbac.authorization.k8s.io").endRoleRef()
          .addNewSubject().withKind("ServiceAccount").withName("berth-scheduler").withNamespace("kube-system")
          .endSubject().build(),
      new RoleBuilder().withNewMetadata().withName("le").withNamespace("kube-system").endMetadata()
          .addToRules(new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
              .withVerbs("update").withResourceNames("berth-scheduler").build()).build(),
      new RoleBindingBuilder().withNewMetadata().withName("le").withNamespace("kube-system").endMetadata()
          .withNewRoleRef().withKind("Role").withName("le").withApiGroup("rbac.authorization.k8s.io").endRoleRef()
          .addNewSubject().withKind("ServiceAccount").withName("berth-scheduler").withNamespace("kube-system")
          .endSubject().build());

  private static AuditLog.Entry entry(String verb, String group, String ns, String resource, String sub,
      String name) {
    return new AuditLog.Entry("u", verb, "/", group, ns, resource, sub, name, 200, "");
  }

  @Test
  void expandsTheBoundRulesIntoOneGrantPerVerbResourceAndName() {
    assertThat(RbacCoverage.grants(CHART, "kube-system", "berth-scheduler")).extracting(RbacCoverage.Grant::key)
        .containsExactly("get /pods", "create /pods", "get /pods/binding", "create /pods/binding",
            "update coordination.k8s.io/leases[berth-scheduler] in kube-system");
    assertThat(RbacCoverage.grants(CHART, "kube-system", "someone-else")).isEmpty();
  }

  @Test
  void aGrantIsUsedOnlyByARequestMatchingVerbGroupResourceNameAndNamespace() {
    List<RbacCoverage.Grant> grants = RbacCoverage.grants(CHART, "kube-system", "berth-scheduler");
    List<AuditLog.Entry> entries = List.of(
        entry("create", "", "ns", "pods", "binding", "a"),
        entry("get", "", "ns", "pods", "", "a"),
        // another Lease, and the right one in another namespace: neither uses the named, namespaced grant
        entry("update", "coordination.k8s.io", "kube-system", "leases", "", "other"),
        entry("update", "coordination.k8s.io", "default", "leases", "", "berth-scheduler"));
    assertThat(RbacCoverage.unused(grants, entries)).extracting(RbacCoverage.Grant::key).containsExactly(
        "create /pods", "get /pods/binding", "update coordination.k8s.io/leases[berth-scheduler] in kube-system");

    List<AuditLog.Entry> more = List.of(entry("update", "coordination.k8s.io", "kube-system", "leases", "",
        "berth-scheduler"));
    assertThat(RbacCoverage.unused(grants, more)).extracting(RbacCoverage.Grant::key)
        .doesNotContain("update coordination.k8s.io/leases[berth-scheduler] in kube-system");
  }

  @Test
  void aBindingToARoleTheChartLacksIsAnError() {
    List<HasMetadata> broken = List.of(CHART.get(1));
    assertThatThrownBy(() -> RbacCoverage.grants(broken, "kube-system", "berth-scheduler"))
        .hasMessageContaining("ClusterRole sched");
  }

  @Test
  void theAllowListNeedsAReasonPerEntry() throws Exception {
    Path file = dir.resolve("allow.txt");
    Files.write(file, List.of("# comment", "", "berth-scheduler get /pods/binding  # never read back"));
    assertThat(RbacCoverage.allowList(file)).containsExactly(
        java.util.Map.entry("berth-scheduler get /pods/binding", "never read back"));
    Files.write(file, List.of("berth-scheduler get /pods/binding"));
    assertThatThrownBy(() -> RbacCoverage.allowList(file)).hasMessageContaining("allow.txt:1")
        .hasMessageContaining("reason");
  }
}
