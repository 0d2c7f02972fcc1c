package io.berth.component;

import java.util.Objects;

/**
 * A SubjectAccessReview's answer: allowed or not, and the reason the authorizer gave (empty if none). Immutable.
 *
 * @param allowed whether the request may proceed
 * @param reason why, as {@code status.reason} says
 */
public record AuthorizationDecision(boolean allowed, String reason) {

  public AuthorizationDecision {
    reason = Objects.requireNonNullElse(reason, "");
  }
}
