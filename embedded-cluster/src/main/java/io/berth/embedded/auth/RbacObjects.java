package io.berth.embedded.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Reads Roles, ClusterRoles, RoleBindings and ClusterRoleBindings from their JSON trees, tolerating malformed
 * input the way authorization must: a malformed rule or subject is left out (logged at debug) so that the rest of
 * the object, and every other object, still authorizes. Stateless and thread-safe.
 */
public final class RbacObjects {

  private static final Logger LOG = LoggerFactory.getLogger(RbacObjects.class);

  private RbacObjects() {
  }

  /** The role in {@code tree} of {@code kind} ({@code Role} or {@code ClusterRole}). */
  public static RbacRole role(String kind, JsonNode tree) {
    String namespace = text(tree.path("metadata").get("namespace"));
    String name = text(tree.path("metadata").get("name"));
    List<RbacRole.IndexedRule> rules = new ArrayList<>();
    JsonNode array = tree.get("rules");
    if (array != null && !array.isNull()) {
      if (!array.isArray()) {
        LOG.debug("{} {}/{}: rules is not an array; the role grants nothing", kind, namespace, name);
      } else {
        for (int i = 0; i < array.size(); i++) {
          Optional<PolicyRule> rule = rule(array.get(i));
          if (rule.isPresent()) {
            rules.add(new RbacRole.IndexedRule(i, rule.get()));
          } else {
            LOG.debug("{} {}/{}: rules[{}] is malformed and is skipped: {}", kind, namespace, name, i, array.get(i));
          }
        }
      }
    }
    return new RbacRole(kind, namespace, name, rules);
  }

  /** The rule in {@code node}, or empty when it is malformed (not an object, or a field not a list of strings). */
  public static Optional<PolicyRule> rule(JsonNode node) {
    if (node == null || !node.isObject()) {
      return Optional.empty();
    }
    Optional<List<String>> verbs = strings(node.get("verbs"));
    Optional<List<String>> groups = strings(node.get("apiGroups"));
    Optional<List<String>> resources = strings(node.get("resources"));
    Optional<List<String>> names = strings(node.get("resourceNames"));
    Optional<List<String>> urls = strings(node.get("nonResourceURLs"));
    if (verbs.isEmpty() || groups.isEmpty() || resources.isEmpty() || names.isEmpty() || urls.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PolicyRule(verbs.get(), groups.get(), resources.get(), names.get(), urls.get()));
  }

  /**
   * The binding in {@code tree} of {@code kind} ({@code RoleBinding} or {@code ClusterRoleBinding}), or empty when
   * its roleRef is missing or malformed.
   */
  public static Optional<RbacBinding> binding(String kind, JsonNode tree) {
    String namespace = text(tree.path("metadata").get("namespace"));
    String name = text(tree.path("metadata").get("name"));
    JsonNode ref = tree.get("roleRef");
    String refKind = ref == null ? "" : text(ref.get("kind"));
    String refName = ref == null ? "" : text(ref.get("name"));
    if (refKind.isEmpty() || refName.isEmpty()) {
      LOG.debug("{} {}/{}: roleRef is missing or malformed; the binding grants nothing", kind, namespace, name);
      return Optional.empty();
    }
    List<Subject> subjects = new ArrayList<>();
    JsonNode array = tree.get("subjects");
    if (array != null && array.isArray()) {
      for (int i = 0; i < array.size(); i++) {
        JsonNode s = array.get(i);
        String subjectKind = s.isObject() ? text(s.get("kind")) : "";
        String subjectName = s.isObject() ? text(s.get("name")) : "";
        if (subjectKind.isEmpty() || subjectName.isEmpty()) {
          LOG.debug("{} {}/{}: subjects[{}] is malformed and is skipped: {}", kind, namespace, name, i, s);
          continue;
        }
        subjects.add(new Subject(subjectKind, subjectName, text(s.get("namespace"))));
      }
    }
    return Optional.of(new RbacBinding(kind, namespace, name, new RoleRef(refKind, refName), subjects));
  }

  private static Optional<List<String>> strings(JsonNode node) {
    if (node == null || node.isNull()) {
      return Optional.of(List.of());
    }
    if (!node.isArray()) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>(node.size());
    for (JsonNode e : node) {
      if (!e.isString()) {
        return Optional.empty();
      }
      out.add(e.stringValue());
    }
    return Optional.of(out);
  }

  private static String text(JsonNode node) {
    return node != null && node.isString() ? node.stringValue() : "";
  }
}
