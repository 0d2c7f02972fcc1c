package io.berth.deploy.rbac;

/**
 * One permission a role grants: a verb on a resource (or {@code resource/subresource}) of an API group, as one
 * cell of a rule's verbs × apiGroups × resources product. {@link #key()} is how the allow-list names it:
 * {@code verb group/resource}, with {@code core} for the core group. Immutable.
 */
record Grant(String roleKind, String roleName, int ruleIndex, String verb, String apiGroup, String resource) {

  /** {@code get core/pods}, {@code update coordination.k8s.io/leases}. */
  String key() {
    return verb + " " + (apiGroup.isEmpty() ? "core" : apiGroup) + "/" + resource;
  }

  @Override
  public String toString() {
    return key() + " (" + roleKind + " " + roleName + " rule " + ruleIndex + ")";
  }
}
