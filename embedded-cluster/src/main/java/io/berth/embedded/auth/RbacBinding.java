package io.berth.embedded.auth;

import java.util.List;
import java.util.Optional;

/**
 * A RoleBinding or ClusterRoleBinding as the authorizer reads it. Immutable.
 *
 * @param kind {@code RoleBinding} or {@code ClusterRoleBinding}
 * @param namespace the binding's namespace, empty for a ClusterRoleBinding
 * @param name the binding's name
 * @param roleRef the role it grants
 * @param subjects the well-formed subjects (malformed ones are left out)
 */
public record RbacBinding(String kind, String namespace, String name, RoleRef roleRef, List<Subject> subjects) {

  public static final String ROLE_BINDING = "RoleBinding";
  public static final String CLUSTER_ROLE_BINDING = "ClusterRoleBinding";

  public RbacBinding {
    namespace = namespace == null ? "" : namespace;
    subjects = List.copyOf(subjects);
  }

  /** The first subject that names {@code user}, as upstream's {@code appliesTo}. */
  public Optional<Subject> subjectFor(UserInfo user) {
    for (Subject s : subjects) {
      if (s.appliesTo(user, namespace)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * As upstream's RBAC names the binding in a reason: {@code ClusterRoleBinding "x"} or {@code RoleBinding "x/ns"}.
   */
  public String describe() {
    return kind + " \"" + (namespace.isEmpty() ? name : name + "/" + namespace) + "\"";
  }
}
