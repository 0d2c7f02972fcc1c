package io.berth.embedded.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bindings, subjects, namespaces, reasons and recorded rules of the RBAC authorizer, over in-memory objects. */
class RbacAuthorizerTest {

  private static final UserInfo SA = new UserInfo("system:serviceaccount:a:sched", "", List.of(
      "system:serviceaccounts", "system:serviceaccounts:a", UserInfo.AUTHENTICATED));
  private static final UserInfo ALICE = new UserInfo("alice", "", List.of("devs", UserInfo.AUTHENTICATED));

  private final InMemoryPolicy policy = new InMemoryPolicy();
  private final RbacAuthorizer authorizer = new RbacAuthorizer(policy, Clock.systemUTC(), 1000);

  private static String clusterRole(String name, String rules) {
    return "{\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"" + name + "\"},\"rules\":" + rules + "}";
  }

  private static String role(String ns, String name, String rules) {
    return "{\"kind\":\"Role\",\"metadata\":{\"namespace\":\"" + ns + "\",\"name\":\"" + name + "\"},\"rules\":"
        + rules + "}";
  }

  private static String clusterRoleBinding(String name, String roleKind, String role, String subjects) {
    return "{\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"" + name + "\"},\"roleRef\":{\"kind\":\""
        + roleKind + "\",\"name\":\"" + role + "\"},\"subjects\":" + subjects + "}";
  }

  private static String roleBinding(String ns, String name, String roleKind, String role, String subjects) {
    return "{\"kind\":\"RoleBinding\",\"metadata\":{\"namespace\":\"" + ns + "\",\"name\":\"" + name
        + "\"},\"roleRef\":{\"kind\":\"" + roleKind + "\",\"name\":\"" + role + "\"},\"subjects\":" + subjects + "}";
  }

  private static final String GET_PODS = "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]";

  private AuthorizationDecision get(UserInfo user, String namespace, String resource, String name) {
    return authorizer.authorize(AuthorizationAttributes.resource(user, "get", "", namespace, resource, "", name),
        AuthorizationDecision.Origin.REQUEST);
  }

  @Test
  void clusterRoleBindingGrantsEveryNamespaceAndTheClusterScope() {
    policy.add(clusterRole("pod-reader", GET_PODS))
        .add(clusterRoleBinding("readers", "ClusterRole", "pod-reader", "[{\"kind\":\"User\",\"name\":\"alice\"}]"));
    assertThat(get(ALICE, "a", "pods", "p").allowed()).isTrue();
    assertThat(get(ALICE, "b", "pods", "p").allowed()).isTrue();
    assertThat(get(ALICE, "", "pods", "p").allowed()).isTrue();
    AuthorizationDecision d = get(ALICE, "a", "pods", "p");
    assertThat(d.reason()).isEqualTo(
        "RBAC: allowed by ClusterRoleBinding \"readers\" of ClusterRole \"pod-reader\" to User \"alice\"");
    assertThat(d.rules()).containsExactly(RuleRef.clusterRole("pod-reader", 0));
    assertThat(get(SA, "a", "pods", "p").allowed()).isFalse();
  }

  @Test
  void roleBindingToAClusterRoleGrantsOnlyItsNamespace() {
    policy.add(clusterRole("pod-reader", GET_PODS))
        .add(roleBinding("a", "read-a", "ClusterRole", "pod-reader", "[{\"kind\":\"Group\",\"name\":\"devs\"}]"));
    AuthorizationDecision inA = get(ALICE, "a", "pods", "p");
    assertThat(inA.allowed()).isTrue();
    assertThat(inA.reason()).isEqualTo(
        "RBAC: allowed by RoleBinding \"read-a/a\" of ClusterRole \"pod-reader\" to Group \"devs\"");
    assertThat(inA.matches()).containsExactly(new RuleMatch(RuleRef.clusterRole("pod-reader", 0), "RoleBinding", "a",
        "read-a", Subject.group("devs")));
    assertThat(get(ALICE, "b", "pods", "p").allowed()).isFalse();
    assertThat(get(ALICE, "", "pods", "p").allowed()).isFalse();
  }

  @Test
  void roleBindingGrantsARoleOfItsOwnNamespace() {
    policy.add(role("a", "pod-reader", GET_PODS)).add(role("b", "pod-reader", GET_PODS))
        .add(roleBinding("a", "read", "Role", "pod-reader", "[{\"kind\":\"User\",\"name\":\"alice\"}]"));
    AuthorizationDecision d = get(ALICE, "a", "pods", "p");
    assertThat(d.allowed()).isTrue();
    assertThat(d.rules()).containsExactly(RuleRef.role("a", "pod-reader", 0));
    assertThat(get(ALICE, "b", "pods", "p").allowed()).isFalse();
  }

  @Test
  void serviceAccountSubjectDefaultsToTheRoleBindingsNamespace() {
    policy.add(role("a", "pod-reader", GET_PODS))
        .add(roleBinding("a", "read", "Role", "pod-reader", "[{\"kind\":\"ServiceAccount\",\"name\":\"sched\"}]"));
    AuthorizationDecision d = get(SA, "a", "pods", "p");
    assertThat(d.allowed()).isTrue();
    assertThat(d.reason()).isEqualTo(
        "RBAC: allowed by RoleBinding \"read/a\" of Role \"pod-reader\" to ServiceAccount \"sched/a\"");
  }

  @Test
  void serviceAccountSubjectOfAClusterRoleBindingNeedsItsNamespace() {
    policy.add(clusterRole("pod-reader", GET_PODS))
        .add(clusterRoleBinding("no-ns", "ClusterRole", "pod-reader",
            "[{\"kind\":\"ServiceAccount\",\"name\":\"sched\"}]"));
    assertThat(get(SA, "a", "pods", "p").allowed()).isFalse();
    policy.add(clusterRoleBinding("other-ns", "ClusterRole", "pod-reader",
        "[{\"kind\":\"ServiceAccount\",\"name\":\"sched\",\"namespace\":\"b\"}]"));
    assertThat(get(SA, "a", "pods", "p").allowed()).isFalse();
    policy.add(clusterRoleBinding("with-ns", "ClusterRole", "pod-reader",
        "[{\"kind\":\"ServiceAccount\",\"name\":\"sched\",\"namespace\":\"a\"}]"));
    assertThat(get(SA, "b", "pods", "p").reason()).isEqualTo(
        "RBAC: allowed by ClusterRoleBinding \"with-ns\" of ClusterRole \"pod-reader\" to ServiceAccount \"sched/a\"");
  }

  @Test
  void groupSubjectsMatchAnyOfTheUsersGroups() {
    policy.add(clusterRole("pod-reader", GET_PODS))
        .add(clusterRoleBinding("sas", "ClusterRole", "pod-reader",
            "[{\"kind\":\"Group\",\"name\":\"system:serviceaccounts:a\"}]"));
    assertThat(get(SA, "x", "pods", "p").allowed()).isTrue();
    assertThat(get(ALICE, "x", "pods", "p").allowed()).isFalse();
  }

  @Test
  void mastersAreAllowedEverythingWithoutRules() {
    UserInfo admin = new UserInfo("admin", "", List.of(UserInfo.MASTERS));
    AuthorizationDecision d = authorizer.authorize(AuthorizationAttributes.nonResource(admin, "delete", "/x"),
        AuthorizationDecision.Origin.REQUEST);
    assertThat(d.allowed()).isTrue();
    assertThat(d.reason()).isEmpty();
    assertThat(d.matches()).isEmpty();
  }

  @Test
  void everyMatchingRuleOfTheUsersRolesIsRecorded() {
    policy.add(clusterRole("broad", "[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
            + "{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}]"))
        .add(role("a", "narrow", GET_PODS))
        .add(clusterRoleBinding("b1", "ClusterRole", "broad", "[{\"kind\":\"User\",\"name\":\"alice\"}]"))
        .add(roleBinding("a", "b2", "Role", "narrow", "[{\"kind\":\"User\",\"name\":\"alice\"}]"))
        .add(roleBinding("a", "b3", "ClusterRole", "broad", "[{\"kind\":\"Group\",\"name\":\"devs\"}]"));
    AuthorizationDecision d = get(ALICE, "a", "pods", "p");
    assertThat(d.allowed()).isTrue();
    assertThat(d.rules()).containsExactly(RuleRef.clusterRole("broad", 1), RuleRef.role("a", "narrow", 0),
        RuleRef.clusterRole("broad", 1));
    assertThat(d.matches()).extracting(RuleMatch::bindingName).containsExactly("b1", "b2", "b3");
    assertThat(d.reason()).contains("ClusterRoleBinding \"b1\"");
    assertThat(authorizer.decisions()).containsExactly(d);
    assertThat(authorizer.rulesUsed(AuthorizationDecision.Origin.REQUEST))
        .containsExactly(RuleRef.clusterRole("broad", 1), RuleRef.role("a", "narrow", 0));
    assertThat(authorizer.unusedRules(policy.clusterRole("broad").orElseThrow().ruleRefs(),
        AuthorizationDecision.Origin.REQUEST)).containsExactly(RuleRef.clusterRole("broad", 0));
    assertThat(authorizer.unusedRules(List.of(RuleRef.role("a", "narrow", 0)),
        AuthorizationDecision.Origin.ACCESS_REVIEW)).containsExactly(RuleRef.role("a", "narrow", 0));
  }

  @Test
  void malformedRulesAreSkippedKeepingTheIndicesOfTheOthers() {
    policy.add(clusterRole("mixed", "[\"not a rule\",{\"verbs\":\"get\",\"resources\":[\"pods\"]},"
            + "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\", 7]},"
            + "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]"))
        .add(clusterRole("broken", "{\"verbs\":[\"*\"]}"))
        .add(clusterRoleBinding("m", "ClusterRole", "mixed", "[{\"kind\":\"User\",\"name\":\"alice\"},{\"kind\":7},"
            + "\"junk\"]"))
        .add(clusterRoleBinding("b", "ClusterRole", "broken", "[{\"kind\":\"User\",\"name\":\"alice\"}]"))
        .add("{\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"no-ref\"},\"subjects\":[{\"kind\":\"User\","
            + "\"name\":\"alice\"}]}");
    AuthorizationDecision d = get(ALICE, "a", "pods", "p");
    assertThat(d.allowed()).isTrue();
    assertThat(d.rules()).containsExactly(RuleRef.clusterRole("mixed", 3));
    assertThat(get(ALICE, "a", "services", "s").allowed()).isFalse();
  }

  @Test
  void aBindingToAMissingRoleDeniesWithUpstreamsReason() {
    policy.add(clusterRoleBinding("dangling", "ClusterRole", "nope", "[{\"kind\":\"User\",\"name\":\"alice\"}]"))
        .add(roleBinding("a", "dangling", "Role", "gone", "[{\"kind\":\"User\",\"name\":\"alice\"}]"))
        .add(roleBinding("a", "weird", "Other", "x", "[{\"kind\":\"User\",\"name\":\"alice\"}]"));
    AuthorizationDecision d = get(ALICE, "a", "pods", "p");
    assertThat(d.allowed()).isFalse();
    assertThat(d.reason()).isEqualTo("RBAC: [clusterrole.rbac.authorization.k8s.io \"nope\" not found, "
        + "role.rbac.authorization.k8s.io \"gone\" not found, unsupported role reference kind: \"Other\"]");
    assertThat(get(SA, "a", "pods", "p").reason()).isEmpty();
    assertThat(authorizer.denials()).hasSize(2);
  }

  @Test
  void forbiddenMessagesAreUpstreams() {
    assertThat(AuthorizationAttributes.resource(SA, "get", "", "ns", "pods", "", "p").forbiddenMessage(""))
        .isEqualTo("pods \"p\" is forbidden: User \"system:serviceaccount:a:sched\" cannot get resource \"pods\" in "
            + "API group \"\" in the namespace \"ns\"");
    assertThat(AuthorizationAttributes.resource(SA, "update", "coordination.k8s.io", "kube-system", "leases", "",
        "berth-scheduler").forbiddenMessage("")).isEqualTo("leases.coordination.k8s.io \"berth-scheduler\" is "
            + "forbidden: User \"system:serviceaccount:a:sched\" cannot update resource \"leases\" in API group "
            + "\"coordination.k8s.io\" in the namespace \"kube-system\"");
    assertThat(AuthorizationAttributes.resource(SA, "create", "", "ns", "pods", "binding", "p").forbiddenMessage(""))
        .isEqualTo("pods \"p\" is forbidden: User \"system:serviceaccount:a:sched\" cannot create resource "
            + "\"pods/binding\" in API group \"\" in the namespace \"ns\"");
    assertThat(AuthorizationAttributes.resource(ALICE, "list", "", "", "nodes", "", "").forbiddenMessage(
        "RBAC: x")).isEqualTo("nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" "
            + "at the cluster scope: RBAC: x");
    assertThat(AuthorizationAttributes.nonResource(ALICE, "get", "/metrics").forbiddenMessage(""))
        .isEqualTo("forbidden: User \"alice\" cannot get path \"/metrics\"");
  }
}
