package io.berth.component;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secure endpoint's gate, in front of every route, as upstream's authentication and authorization filters:
 * <ul>
 *   <li>a path in {@code --authorization-always-allow-paths} (an entry ending in {@code *} is a prefix) passes
 *   without a token;</li>
 *   <li>otherwise {@code Authorization: Bearer <token>} is required and reviewed by the
 *   {@link DelegatingAuthenticator}: no token, a token the API server does not authenticate, or a TokenReview that
 *   fails are 401 {@code Unauthorized};</li>
 *   <li>then the {@link DelegatingAuthorizer} is asked about {@code nonResourceAttributes{path, verb}}, the verb
 *   being the lowercase method ({@code get} for GET and HEAD): denied is 403
 *   {@code Forbidden: "/metrics", Reason: "..."}, a SubjectAccessReview that fails is 500
 *   {@code Internal Server Error: "/metrics": ...}.</li>
 * </ul>
 * Nothing of the route's content is written unless the request passed. Called concurrently from the request
 * threads; thread-safe (immutable; the state is in the authenticator's and authorizer's caches).
 */
final class DelegatedAuthFilter extends Filter {

  private static final Logger log = LoggerFactory.getLogger(DelegatedAuthFilter.class);

  private final DelegatingAuthenticator authenticator;
  private final DelegatingAuthorizer authorizer;
  private final List<String> alwaysAllowPaths;

  DelegatedAuthFilter(DelegatingAuthenticator authenticator, DelegatingAuthorizer authorizer,
      List<String> alwaysAllowPaths) {
    this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
    this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
    this.alwaysAllowPaths = List.copyOf(alwaysAllowPaths);
  }

  @Override
  public String description() {
    return "delegated authentication (TokenReview) and authorization (SubjectAccessReview)";
  }

  @Override
  public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (alwaysAllowed(path)) {
      chain.doFilter(exchange);
      return;
    }
    Optional<String> token = bearerToken(exchange.getRequestHeaders().getFirst("Authorization"));
    if (token.isEmpty()) {
      reject(exchange, 401, "Unauthorized\n");
      return;
    }
    Optional<AuthenticatedUser> user;
    try {
      user = authenticator.authenticate(token.get());
    } catch (DelegationException e) {
      log.warn("authentication of a request to {} failed: {}", path, e.getMessage());
      reject(exchange, 401, "Unauthorized\n");
      return;
    }
    if (user.isEmpty()) {
      reject(exchange, 401, "Unauthorized\n");
      return;
    }
    String verb = verb(exchange.getRequestMethod());
    String uri = exchange.getRequestURI().toString();
    AuthorizationDecision decision;
    try {
      decision = authorizer.authorize(user.get(), path, verb);
    } catch (DelegationException e) {
      log.warn("authorization of {} {} for {} failed: {}", verb, path, user.get().name(), e.getMessage());
      reject(exchange, 500, "Internal Server Error: " + quote(uri) + ": " + e.getMessage() + "\n");
      return;
    }
    if (!decision.allowed()) {
      log.debug("forbidden: user {} cannot {} {}: {}", user.get().name(), verb, path, decision.reason());
      reject(exchange, 403, "Forbidden: " + quote(uri) + ", Reason: " + quote(decision.reason()) + "\n");
      return;
    }
    chain.doFilter(exchange);
  }

  /** Whether {@code path} is one of the always-allowed paths (an entry ending in {@code *} is a prefix). */
  boolean alwaysAllowed(String path) {
    for (String allowed : alwaysAllowPaths) {
      if (allowed.endsWith("*") ? path.startsWith(allowed.substring(0, allowed.length() - 1))
          : path.equals(allowed)) {
        return true;
      }
    }
    return false;
  }

  /** The token of an {@code Authorization: Bearer} header (scheme case-insensitive), if there is a non-empty one. */
  static Optional<String> bearerToken(String header) {
    if (header == null) {
      return Optional.empty();
    }
    String trimmed = header.trim();
    int space = trimmed.indexOf(' ');
    if (space < 0 || !trimmed.substring(0, space).equalsIgnoreCase("bearer")) {
      return Optional.empty();
    }
    String token = trimmed.substring(space + 1).trim();
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }

  /** The SubjectAccessReview verb of an HTTP method: lowercase, HEAD is {@code get}. */
  static String verb(String method) {
    return method.equalsIgnoreCase("HEAD") ? "get" : method.toLowerCase(Locale.ROOT);
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static void reject(HttpExchange exchange, int status, String body) throws IOException {
    try (exchange) {
      DaemonEndpoint.respond(exchange, status, EndpointRoutes.TEXT, body);
    }
  }
}
