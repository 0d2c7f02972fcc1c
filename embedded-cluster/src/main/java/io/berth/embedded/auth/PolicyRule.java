package io.berth.embedded.auth;

import java.util.List;

/**
 * One rule of a Role or ClusterRole ({@code rbac/v1 PolicyRule}): the verbs it grants on the resources of the API
 * groups, optionally only for some names, or on non-resource URLs. {@code *} is the wildcard of verbs, groups,
 * resources and non-resource URLs. Immutable.
 */
public record PolicyRule(List<String> verbs, List<String> apiGroups, List<String> resources,
    List<String> resourceNames, List<String> nonResourceURLs) {

  public PolicyRule {
    verbs = copy(verbs);
    apiGroups = copy(apiGroups);
    resources = copy(resources);
    resourceNames = copy(resourceNames);
    nonResourceURLs = copy(nonResourceURLs);
  }

  private static List<String> copy(List<String> l) {
    return l == null ? List.of() : List.copyOf(l);
  }

  /** A resource rule. */
  public static PolicyRule resources(List<String> verbs, List<String> apiGroups, List<String> resources,
      List<String> resourceNames) {
    return new PolicyRule(verbs, apiGroups, resources, resourceNames, List.of());
  }

  /** A non-resource URL rule. */
  public static PolicyRule nonResource(List<String> verbs, List<String> urls) {
    return new PolicyRule(verbs, List.of(), List.of(), List.of(), urls);
  }
}
