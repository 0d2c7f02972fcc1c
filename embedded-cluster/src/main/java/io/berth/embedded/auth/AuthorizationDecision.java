package io.berth.embedded.auth;

import java.time.Instant;
import java.util.List;

/**
 * One authorization decision of the {@link RbacAuthorizer}, as recorded for coverage and denial assertions.
 * Immutable.
 *
 * <p>{@link #matches} lists <em>every</em> rule of the user's bound roles that allows the request, not only the
 * first one upstream stops at: a coverage test counts a rule as exercised when it matches any request. It is empty
 * for a denial, and for a request allowed because the user is in {@code system:masters} (allowed before any rule is
 * consulted). {@link #reason} is upstream's: {@code RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to
 * User "u"} naming the first match, empty for {@code system:masters} and for most denials, {@code RBAC: ...} listing
 * evaluation errors (a binding to a missing role) for a denial that met some.
 *
 * @param time when the decision was made (the cluster's clock)
 * @param origin what asked: a request to the API server, or a SubjectAccessReview
 * @param attributes the request and its user
 * @param allowed whether the request is allowed
 * @param reason upstream's reason text
 * @param matches every allowing rule, in evaluation order (ClusterRoleBindings first, then RoleBindings)
 */
public record AuthorizationDecision(Instant time, Origin origin, AuthorizationAttributes attributes,
    boolean allowed, String reason, List<RuleMatch> matches) {

  /** What an authorization decision was made for. */
  public enum Origin {
    /** A request the API server served (or refused). */
    REQUEST,
    /** A SubjectAccessReview, LocalSubjectAccessReview or SelfSubjectAccessReview asking about a user. */
    ACCESS_REVIEW
  }

  public AuthorizationDecision {
    reason = reason == null ? "" : reason;
    matches = List.copyOf(matches);
  }

  public UserInfo user() {
    return attributes.user();
  }

  /** The identities of {@link #matches}, in order. */
  public List<RuleRef> rules() {
    return matches.stream().map(RuleMatch::rule).toList();
  }
}
