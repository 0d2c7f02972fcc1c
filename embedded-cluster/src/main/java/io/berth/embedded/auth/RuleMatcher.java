package io.berth.embedded.auth;

import java.util.List;

/**
 * Whether one RBAC rule allows a request, with upstream's semantics ({@code rbac/v1 evaluation helpers}):
 * <ul>
 *   <li>verbs and apiGroups: an exact entry or {@code *};</li>
 *   <li>resources: {@code *}, the exact {@code resource} or {@code resource/subresource}, or {@code *\/subresource}
 *       for that subresource of any resource (a plain {@code pods} does not cover {@code pods/status}, and there is
 *       no {@code pods/*});</li>
 *   <li>resourceNames: empty matches any request; otherwise only a request carrying one of the names (a
 *       {@code create}, or a {@code list} without a {@code metadata.name} field selector, has no name and never
 *       matches);</li>
 *   <li>nonResourceURLs (for non-resource requests only): {@code *}, the exact path, or a prefix when the entry ends
 *       in {@code *}.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class RuleMatcher {

  /** The wildcard of verbs, groups, resources and URLs. */
  public static final String ALL = "*";

  private RuleMatcher() {
  }

  /** Whether {@code rule} allows the request {@code attributes} describes. */
  public static boolean allows(AuthorizationAttributes attributes, PolicyRule rule) {
    if (!verbMatches(rule, attributes.verb())) {
      return false;
    }
    if (!attributes.resourceRequest()) {
      return nonResourceUrlMatches(rule, attributes.path());
    }
    return apiGroupMatches(rule, attributes.apiGroup())
        && resourceMatches(rule, attributes.resourcePath(), attributes.subresource())
        && resourceNameMatches(rule, attributes.name());
  }

  static boolean verbMatches(PolicyRule rule, String verb) {
    return containsOrAll(rule.verbs(), verb);
  }

  static boolean apiGroupMatches(PolicyRule rule, String group) {
    return containsOrAll(rule.apiGroups(), group);
  }

  static boolean resourceMatches(PolicyRule rule, String combinedResource, String subresource) {
    for (String r : rule.resources()) {
      if (r.equals(ALL) || r.equals(combinedResource)) {
        return true;
      }
      if (!subresource.isEmpty() && r.length() == subresource.length() + 2 && r.startsWith("*/")
          && r.endsWith(subresource)) {
        return true;
      }
    }
    return false;
  }

  static boolean resourceNameMatches(PolicyRule rule, String name) {
    return rule.resourceNames().isEmpty() || rule.resourceNames().contains(name);
  }

  static boolean nonResourceUrlMatches(PolicyRule rule, String path) {
    for (String url : rule.nonResourceURLs()) {
      if (url.equals(ALL) || url.equals(path)) {
        return true;
      }
      if (url.endsWith(ALL) && path.startsWith(trimTrailingStars(url))) {
        return true;
      }
    }
    return false;
  }

  private static String trimTrailingStars(String s) {
    int end = s.length();
    while (end > 0 && s.charAt(end - 1) == '*') {
      end--;
    }
    return s.substring(0, end);
  }

  private static boolean containsOrAll(List<String> values, String value) {
    for (String v : values) {
      if (v.equals(ALL) || v.equals(value)) {
        return true;
      }
    }
    return false;
  }
}
