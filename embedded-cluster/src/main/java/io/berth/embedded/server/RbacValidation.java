package io.berth.embedded.server;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * kube-apiserver's validation of Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, so that RBAC objects
 * a real cluster rejects (a rule without verbs, a ClusterRoleBinding to a Role, a ServiceAccount subject of a
 * ClusterRoleBinding without a namespace, a changed roleRef) are rejected here too: 422 Invalid naming the first
 * bad field. An empty {@code apiGroup} of a roleRef or of a User or Group subject is accepted as upstream's
 * defaulting fills it. Stateless and thread-safe.
 */
final class RbacValidation {

  static final String GROUP = "rbac.authorization.k8s.io";

  private RbacValidation() {
  }

  static void validate(ResourceType type, String name, JsonNode obj) {
    if (type == ResourceTypes.ROLES || type == ResourceTypes.CLUSTER_ROLES) {
      validateRules(type, name, obj.get("rules"), type == ResourceTypes.ROLES);
    } else {
      validateBinding(type, name, obj, type == ResourceTypes.ROLE_BINDINGS);
    }
  }

  private static void validateRules(ResourceType type, String name, JsonNode rules, boolean namespaced) {
    if (rules == null || rules.isNull()) {
      return;
    }
    if (!rules.isArray()) {
      throw invalid(type, name, "rules: Invalid value: " + rules + ": must be a list of rules");
    }
    for (int i = 0; i < rules.size(); i++) {
      String path = "rules[" + i + "]";
      JsonNode rule = rules.get(i);
      if (!rule.isObject()) {
        throw invalid(type, name, path + ": Invalid value: " + rule + ": must be an object");
      }
      for (String field : List.of("verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs")) {
        requireStrings(type, name, rule.get(field), path + "." + field);
      }
      if (size(rule, "verbs") == 0) {
        throw invalid(type, name, path + ".verbs: Required value: verbs must contain at least one value");
      }
      if (size(rule, "nonResourceURLs") > 0) {
        if (namespaced) {
          throw invalid(type, name, path + ".nonResourceURLs: Invalid value: " + rule.get("nonResourceURLs")
              + ": namespaced rules cannot apply to non-resource URLs");
        }
        if (size(rule, "apiGroups") > 0 || size(rule, "resources") > 0 || size(rule, "resourceNames") > 0) {
          throw invalid(type, name, path + ".nonResourceURLs: Invalid value: " + rule.get("nonResourceURLs")
              + ": rules cannot apply to both regular resources and non-resource URLs");
        }
        continue;
      }
      if (size(rule, "apiGroups") == 0) {
        throw invalid(type, name, path + ".apiGroups: Required value: resource rules must supply at least one api "
            + "group");
      }
      if (size(rule, "resources") == 0) {
        throw invalid(type, name, path + ".resources: Required value: resource rules must supply at least one "
            + "resource");
      }
    }
  }

  private static void validateBinding(ResourceType type, String name, JsonNode obj, boolean namespaced) {
    JsonNode ref = obj.get("roleRef");
    String refGroup = text(ref, "apiGroup");
    if (!refGroup.isEmpty() && !refGroup.equals(GROUP)) {
      throw invalid(type, name, "roleRef.apiGroup: Unsupported value: \"" + refGroup + "\": supported values: \""
          + GROUP + "\"");
    }
    String refKind = text(ref, "kind");
    List<String> kinds = namespaced ? List.of("Role", "ClusterRole") : List.of("ClusterRole");
    if (!kinds.contains(refKind)) {
      throw invalid(type, name, "roleRef.kind: Unsupported value: \"" + refKind + "\": supported values: \""
          + String.join("\", \"", kinds) + "\"");
    }
    if (text(ref, "name").isEmpty()) {
      throw invalid(type, name, "roleRef.name: Required value");
    }
    JsonNode subjects = obj.get("subjects");
    if (subjects == null || subjects.isNull()) {
      return;
    }
    if (!subjects.isArray()) {
      throw invalid(type, name, "subjects: Invalid value: " + subjects + ": must be a list of subjects");
    }
    for (int i = 0; i < subjects.size(); i++) {
      validateSubject(type, name, subjects.get(i), "subjects[" + i + "]", namespaced);
    }
  }

  private static void validateSubject(ResourceType type, String name, JsonNode s, String path, boolean namespaced) {
    if (!s.isObject()) {
      throw invalid(type, name, path + ": Invalid value: " + s + ": must be an object");
    }
    if (text(s, "name").isEmpty()) {
      throw invalid(type, name, path + ".name: Required value");
    }
    String kind = text(s, "kind");
    String group = text(s, "apiGroup");
    switch (kind) {
      case "ServiceAccount" -> {
        if (!group.isEmpty()) {
          throw invalid(type, name, path + ".apiGroup: Unsupported value: \"" + group + "\": supported values: \"\"");
        }
        if (!namespaced && text(s, "namespace").isEmpty()) {
          throw invalid(type, name, path + ".namespace: Required value");
        }
      }
      case "User", "Group" -> {
        if (!group.isEmpty() && !group.equals(GROUP)) {
          throw invalid(type, name, path + ".apiGroup: Unsupported value: \"" + group + "\": supported values: \""
              + GROUP + "\"");
        }
      }
      default -> throw invalid(type, name, path + ".kind: Unsupported value: \"" + kind + "\": supported values: "
          + "\"ServiceAccount\", \"User\", \"Group\"");
    }
  }

  /** Upstream: a binding's roleRef cannot change; delete and recreate the binding instead. */
  static void validateRoleRefUnchanged(ResourceType type, String name, JsonNode current, JsonNode next) {
    JsonNode before = current.get("roleRef");
    JsonNode after = next.get("roleRef");
    if (!text(before, "kind").equals(text(after, "kind")) || !text(before, "name").equals(text(after, "name"))) {
      throw invalid(type, name, "roleRef: Invalid value: " + after + ": cannot change roleRef");
    }
  }

  private static void requireStrings(ResourceType type, String name, JsonNode list, String path) {
    if (list == null || list.isNull()) {
      return;
    }
    boolean ok = list.isArray();
    if (ok) {
      for (JsonNode e : list) {
        ok &= e.isString();
      }
    }
    if (!ok) {
      throw invalid(type, name, path + ": Invalid value: " + list + ": must be a list of strings");
    }
  }

  private static int size(JsonNode rule, String field) {
    JsonNode list = rule.get(field);
    return list != null && list.isArray() ? list.size() : 0;
  }

  private static String text(JsonNode node, String field) {
    String s = node == null ? null : Json.text(node, field);
    return s == null ? "" : s;
  }

  private static ApiException invalid(ResourceType type, String name, String fieldMessage) {
    return ApiException.invalid(type, name, fieldMessage);
  }
}
