package io.berth.embedded.auth;

import java.util.List;

/**
 * A Role or ClusterRole as the authorizer reads it: its well-formed rules, each with its index in the object's
 * {@code rules} array (malformed rules are left out, so indices may have gaps). Immutable.
 *
 * @param kind {@code Role} or {@code ClusterRole}
 * @param namespace the Role's namespace, empty for a ClusterRole
 */
public record RbacRole(String kind, String namespace, String name, List<IndexedRule> rules) {

  /** A rule and its index in the role's {@code rules}. */
  public record IndexedRule(int index, PolicyRule rule) {
  }

  public RbacRole {
    namespace = namespace == null ? "" : namespace;
    rules = List.copyOf(rules);
  }

  /** The identities of the role's well-formed rules, for coverage: compare with {@code RbacAuthorizer.rulesUsed}. */
  public List<RuleRef> ruleRefs() {
    return rules.stream().map(r -> new RuleRef(kind, namespace, name, r.index())).toList();
  }
}
