package io.berth.embedded.auth;

/**
 * The identity of one rule: {@code rules[ruleIndex]} of a Role or ClusterRole. This is what a coverage test counts
 * as exercised. Immutable.
 *
 * @param roleKind {@code Role} or {@code ClusterRole}
 * @param roleNamespace the Role's namespace, empty for a ClusterRole (also when bound by a RoleBinding)
 * @param roleName the role's name
 * @param ruleIndex the index in the role's {@code rules}
 */
public record RuleRef(String roleKind, String roleNamespace, String roleName, int ruleIndex) {

  public static RuleRef clusterRole(String name, int ruleIndex) {
    return new RuleRef(RoleRef.CLUSTER_ROLE, "", name, ruleIndex);
  }

  public static RuleRef role(String namespace, String name, int ruleIndex) {
    return new RuleRef(RoleRef.ROLE, namespace, name, ruleIndex);
  }
}
