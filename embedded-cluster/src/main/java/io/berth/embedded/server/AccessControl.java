package io.berth.embedded.server;

import io.berth.embedded.auth.AuthorizationAttributes;
import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.RbacAuthorizer;
import io.berth.embedded.auth.TokenAuthenticator;
import io.berth.embedded.auth.UserInfo;
import io.berth.embedded.selector.FieldSelector;
import java.util.Locale;
import java.util.Optional;

/**
 * The API server's authentication and authorization filter, run on every request before it is served. A bearer
 * token ({@code Authorization: Bearer <token>}) must be one the {@link TokenAuthenticator} knows, or the request
 * is refused with 401; a request without one is {@code system:anonymous} in {@code system:unauthenticated}. When
 * enforcing (the cluster's RBAC option), the {@link RbacAuthorizer} then decides, and a denial is upstream's 403.
 * When not enforcing, every request is served as before and nothing is recorded; the user is still resolved
 * (unknown tokens as anonymous) for SelfSubjectAccessReviews.
 *
 * <p>Called on the transport's threads. Thread-safe: immutable, its collaborators are thread-safe.
 */
public final class AccessControl {

  private final TokenAuthenticator tokens;
  private final RbacAuthorizer authorizer;
  private final boolean enforce;

  public AccessControl(TokenAuthenticator tokens, RbacAuthorizer authorizer, boolean enforce) {
    this.tokens = tokens;
    this.authorizer = authorizer;
    this.enforce = enforce;
  }

  public TokenAuthenticator tokens() {
    return tokens;
  }

  public RbacAuthorizer authorizer() {
    return authorizer;
  }

  public boolean enforcing() {
    return enforce;
  }

  /**
   * The user of a request with {@code authorizationHeader} (may be null) asking {@code info}, once authenticated
   * and (when enforcing) authorized; otherwise throws the 401 or 403 to answer.
   */
  UserInfo admit(RequestInfo info, String authorizationHeader) {
    Optional<String> token = bearerToken(authorizationHeader);
    UserInfo user;
    if (token.isEmpty()) {
      user = UserInfo.ANONYMOUS;
    } else if (token.get().isEmpty()) {
      // An empty bearer token is invalid upstream.
      if (enforce) {
        throw ApiException.unauthorized();
      }
      user = UserInfo.ANONYMOUS;
    } else {
      Optional<UserInfo> known = tokens.authenticate(token.get());
      if (known.isEmpty() && enforce) {
        throw ApiException.unauthorized();
      }
      user = known.orElse(UserInfo.ANONYMOUS);
    }
    if (!enforce) {
      return user;
    }
    AuthorizationAttributes attributes = attributes(user, info);
    AuthorizationDecision decision = authorizer.authorize(attributes, AuthorizationDecision.Origin.REQUEST);
    if (!decision.allowed()) {
      throw ApiException.forbidden(attributes.forbiddenMessage(decision.reason()), attributes.apiGroup(),
          attributes.resource(), attributes.name());
    }
    return user;
  }

  /**
   * The token of a bearer {@code Authorization} header, as upstream reads it: absent when there is no header or
   * another scheme (the request is then anonymous); an empty string for {@code Bearer} without a token.
   */
  static Optional<String> bearerToken(String header) {
    if (header == null) {
      return Optional.empty();
    }
    String[] parts = header.trim().split(" ", 3);
    if (parts.length < 2 || !parts[0].toLowerCase(Locale.ROOT).equals("bearer")) {
      return Optional.empty();
    }
    return Optional.of(parts[1]);
  }

  /**
   * What the authorizer decides on for {@code info}, as upstream's request-info factory has it: a namespace object
   * is in its own namespace, and a {@code list} or {@code watch} whose field selector requires
   * {@code metadata.name} carries that name.
   */
  static AuthorizationAttributes attributes(UserInfo user, RequestInfo info) {
    if (!info.resourceRequest()) {
      return AuthorizationAttributes.nonResource(user, info.method().toLowerCase(Locale.ROOT), info.path());
    }
    String namespace = info.namespace();
    if (info.resource().equals("namespaces") && !info.name().isEmpty()) {
      namespace = info.name();
    }
    String name = info.name();
    if (name.isEmpty() && (info.verb().equals("list") || info.verb().equals("watch"))) {
      name = info.param("fieldSelector").flatMap(AccessControl::requiredName).orElse("");
    }
    return new AuthorizationAttributes(user, true, info.verb(), info.group(), info.version(), namespace,
        info.resource(), info.subresource(), name, info.path());
  }

  private static Optional<String> requiredName(String selector) {
    try {
      return FieldSelector.parse(selector).requiredValue("metadata.name")
          .filter(n -> !n.equals(".") && !n.equals("..") && !n.contains("/") && !n.contains("%"));
    } catch (RuntimeException e) {
      // The list itself answers 400 for a malformed selector, once authorized.
      return Optional.empty();
    }
  }
}
