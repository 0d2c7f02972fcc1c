package io.berth.embedded.auth;

/**
 * A subject of a binding ({@code rbac/v1 Subject}): a {@code User} or {@code Group} by name, or a
 * {@code ServiceAccount} by namespace and name (the namespace may be empty in a RoleBinding: the binding's own).
 * Immutable.
 */
public record Subject(String kind, String name, String namespace) {

  public static final String USER = "User";
  public static final String GROUP = "Group";
  public static final String SERVICE_ACCOUNT = "ServiceAccount";

  public Subject {
    namespace = namespace == null ? "" : namespace;
  }

  public static Subject user(String name) {
    return new Subject(USER, name, "");
  }

  public static Subject group(String name) {
    return new Subject(GROUP, name, "");
  }

  public static Subject serviceAccount(String namespace, String name) {
    return new Subject(SERVICE_ACCOUNT, name, namespace);
  }

  /**
   * Whether this subject names {@code user}; {@code bindingNamespace} (empty for a ClusterRoleBinding) is the
   * namespace of a ServiceAccount subject that has none.
   */
  public boolean appliesTo(UserInfo user, String bindingNamespace) {
    return switch (kind) {
      case USER -> user.username().equals(name);
      case GROUP -> user.inGroup(name);
      case SERVICE_ACCOUNT -> {
        String ns = namespace.isEmpty() ? bindingNamespace : namespace;
        yield !ns.isEmpty() && user.username().equals(UserInfo.serviceAccountUsername(ns, name));
      }
      default -> false;
    };
  }

  /** As upstream's RBAC describes a subject in a reason: {@code User "alice"}, {@code ServiceAccount "sa/ns"}. */
  public String describe(String bindingNamespace) {
    if (kind.equals(SERVICE_ACCOUNT)) {
      return kind + " \"" + name + "/" + (namespace.isEmpty() ? bindingNamespace : namespace) + "\"";
    }
    return kind + " \"" + name + "\"";
  }
}
