package io.berth.embedded.auth;

import io.berth.embedded.server.Json;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The default ClusterRoles and ClusterRoleBindings kube-apiserver bootstraps that matter to clients of the
 * embedded cluster, with upstream's names and rules: {@code cluster-admin} (bound to {@code system:masters}),
 * {@code system:discovery} and {@code system:basic-user} (bound to {@code system:authenticated}),
 * {@code system:public-info-viewer} (bound to {@code system:authenticated} and {@code system:unauthenticated}),
 * and the unbound {@code system:auth-delegator} that delegated authentication and authorization need. Stateless
 * and thread-safe; the embedded cluster stores these when RBAC is on.
 */
public final class BootstrapPolicy {

  private static final String RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";

  private BootstrapPolicy() {
  }

  /** The default ClusterRoles. */
  public static List<ObjectNode> clusterRoles() {
    return List.of(
        clusterRole("cluster-admin",
            resourceRule(List.of("*"), List.of("*"), List.of("*")),
            urlRule(List.of("*"), List.of("*"))),
        clusterRole("system:discovery",
            urlRule(List.of("get"), List.of("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                "/openapi/*", "/readyz", "/version", "/version/"))),
        clusterRole("system:basic-user",
            resourceRule(List.of("create"), List.of("authorization.k8s.io"),
                List.of("selfsubjectaccessreviews", "selfsubjectrulesreviews")),
            resourceRule(List.of("create"), List.of("authentication.k8s.io"), List.of("selfsubjectreviews"))),
        clusterRole("system:public-info-viewer",
            urlRule(List.of("get"), List.of("/healthz", "/livez", "/readyz", "/version", "/version/"))),
        clusterRole("system:auth-delegator",
            resourceRule(List.of("create"), List.of("authentication.k8s.io"), List.of("tokenreviews")),
            resourceRule(List.of("create"), List.of("authorization.k8s.io"), List.of("subjectaccessreviews"))));
  }

  /** The default ClusterRoleBindings. */
  public static List<ObjectNode> clusterRoleBindings() {
    return List.of(
        clusterRoleBinding("cluster-admin", "cluster-admin", List.of(UserInfo.MASTERS)),
        clusterRoleBinding("system:discovery", "system:discovery", List.of(UserInfo.AUTHENTICATED)),
        clusterRoleBinding("system:basic-user", "system:basic-user", List.of(UserInfo.AUTHENTICATED)),
        clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer",
            List.of(UserInfo.AUTHENTICATED, UserInfo.UNAUTHENTICATED)));
  }

  private static ObjectNode clusterRole(String name, ObjectNode... rules) {
    ObjectNode role = object("ClusterRole", name);
    ArrayNode array = role.putArray("rules");
    for (ObjectNode rule : rules) {
      array.add(rule);
    }
    return role;
  }

  private static ObjectNode clusterRoleBinding(String name, String role, List<String> groups) {
    ObjectNode binding = object("ClusterRoleBinding", name);
    ObjectNode ref = binding.putObject("roleRef");
    ref.put("apiGroup", "rbac.authorization.k8s.io");
    ref.put("kind", RoleRef.CLUSTER_ROLE);
    ref.put("name", role);
    ArrayNode subjects = binding.putArray("subjects");
    for (String group : groups) {
      ObjectNode s = subjects.addObject();
      s.put("apiGroup", "rbac.authorization.k8s.io");
      s.put("kind", Subject.GROUP);
      s.put("name", group);
    }
    return binding;
  }

  private static ObjectNode object(String kind, String name) {
    ObjectNode o = Json.object();
    o.put("apiVersion", RBAC_API_VERSION);
    o.put("kind", kind);
    ObjectNode metadata = o.putObject("metadata");
    metadata.put("name", name);
    metadata.putObject("labels").put("kubernetes.io/bootstrapping", "rbac-defaults");
    metadata.putObject("annotations").put("rbac.authorization.kubernetes.io/autoupdate", "true");
    return o;
  }

  private static ObjectNode resourceRule(List<String> verbs, List<String> groups, List<String> resources) {
    ObjectNode rule = Json.object();
    strings(rule.putArray("verbs"), verbs);
    strings(rule.putArray("apiGroups"), groups);
    strings(rule.putArray("resources"), resources);
    return rule;
  }

  private static ObjectNode urlRule(List<String> verbs, List<String> urls) {
    ObjectNode rule = Json.object();
    strings(rule.putArray("verbs"), verbs);
    strings(rule.putArray("nonResourceURLs"), urls);
    return rule;
  }

  private static void strings(ArrayNode array, List<String> values) {
    values.forEach(array::add);
  }
}
