package io.berth.embedded.auth;

/**
 * One rule that allows a request, and the binding through which the requesting user holds it. Immutable.
 *
 * @param rule the rule's identity
 * @param bindingKind {@code ClusterRoleBinding} or {@code RoleBinding}
 * @param bindingNamespace the RoleBinding's namespace, empty for a ClusterRoleBinding
 * @param bindingName the binding's name
 * @param subject the binding's first subject that names the user
 */
public record RuleMatch(RuleRef rule, String bindingKind, String bindingNamespace, String bindingName,
    Subject subject) {
}
