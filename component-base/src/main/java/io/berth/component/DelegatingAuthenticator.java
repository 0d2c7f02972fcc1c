package io.berth.component;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates bearer tokens by creating a {@code TokenReview} ({@code authentication.k8s.io/v1}) on the API
 * server, as upstream's delegating authenticator ({@code --authentication-kubeconfig}) does. Successful results
 * are cached for {@code --authentication-token-webhook-cache-ttl}, keyed by the SHA-256 of the token (the token
 * itself is never kept); rejections are asked again each time; concurrent requests with the same token share one
 * review. No audiences are requested. Called from the secure endpoint's request threads; thread-safe (the state is
 * the {@link AuthCache}).
 */
public final class DelegatingAuthenticator {

  static final int MAX_ENTRIES = 4096;

  private static final Logger log = LoggerFactory.getLogger(DelegatingAuthenticator.class);

  private final KubernetesClient client;
  private final Duration ttl;
  private final AuthCache<String, Optional<AuthenticatedUser>> cache;

  /**
   * @param client the client reviews are created with (not closed here)
   * @param ttl how long a successful authentication is remembered; zero for never
   */
  public DelegatingAuthenticator(KubernetesClient client, Duration ttl) {
    this(client, ttl, TokenBucketRateLimiter.Ticker.SYSTEM, MAX_ENTRIES);
  }

  DelegatingAuthenticator(KubernetesClient client, Duration ttl, TokenBucketRateLimiter.Ticker ticker,
      int maxEntries) {
    this.client = Objects.requireNonNull(client, "client");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    this.cache = new AuthCache<>(maxEntries, ticker);
  }

  /**
   * The user {@code token} belongs to, or empty if the API server says it is not authenticated.
   *
   * @throws DelegationException if the review could not be made
   */
  public Optional<AuthenticatedUser> authenticate(String token) {
    Objects.requireNonNull(token, "token");
    return cache.get(sha256(token), () -> review(token), user -> user.isPresent() ? ttl : Duration.ZERO);
  }

  private Optional<AuthenticatedUser> review(String token) {
    TokenReview request = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build();
    TokenReview answer;
    try {
      answer = client.authentication().v1().tokenReviews().create(request);
    } catch (RuntimeException e) {
      throw new DelegationException("TokenReview failed: " + e.getMessage(), e);
    }
    TokenReviewStatus status = answer == null ? null : answer.getStatus();
    if (status == null || !Boolean.TRUE.equals(status.getAuthenticated()) || status.getUser() == null) {
      log.debug("token not authenticated: {}", status == null ? "no status" : status.getError());
      return Optional.empty();
    }
    UserInfo user = status.getUser();
    if (user.getUsername() == null || user.getUsername().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new AuthenticatedUser(user.getUsername(), user.getUid(), user.getGroups(), user.getExtra()));
  }

  private static String sha256(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
