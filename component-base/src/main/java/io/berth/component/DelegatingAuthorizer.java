package io.berth.component;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Authorizes requests on non-resource paths by creating a {@code SubjectAccessReview} ({@code authorization.k8s.io/v1})
 * with the authenticated user's name, uid, groups and extra, and {@code nonResourceAttributes{path, verb}}, as
 * upstream's delegating authorizer ({@code --authorization-kubeconfig}) does. {@code status.allowed} allows;
 * anything else (denied, or no opinion) denies with {@code status.reason}. Allowed decisions are cached for
 * {@code --authorization-webhook-cache-authorized-ttl}, denied ones for
 * {@code --authorization-webhook-cache-unauthorized-ttl}, keyed by the whole review (user, uid, groups, extra, path,
 * verb); concurrent identical requests share one review. Called from the secure endpoint's request threads;
 * thread-safe (the state is the {@link AuthCache}).
 */
public final class DelegatingAuthorizer {

  static final int MAX_ENTRIES = 8192;

  private record Key(String user, String uid, List<String> groups, Map<String, List<String>> extra, String path,
      String verb) {
  }

  private final KubernetesClient client;
  private final Duration allowedTtl;
  private final Duration deniedTtl;
  private final AuthCache<Key, AuthorizationDecision> cache;

  /**
   * @param client the client reviews are created with (not closed here)
   * @param allowedTtl how long an allowed decision is remembered; zero for never
   * @param deniedTtl how long a denied decision is remembered; zero for never
   */
  public DelegatingAuthorizer(KubernetesClient client, Duration allowedTtl, Duration deniedTtl) {
    this(client, allowedTtl, deniedTtl, TokenBucketRateLimiter.Ticker.SYSTEM, MAX_ENTRIES);
  }

  DelegatingAuthorizer(KubernetesClient client, Duration allowedTtl, Duration deniedTtl,
      TokenBucketRateLimiter.Ticker ticker, int maxEntries) {
    this.client = Objects.requireNonNull(client, "client");
    this.allowedTtl = Objects.requireNonNull(allowedTtl, "allowedTtl");
    this.deniedTtl = Objects.requireNonNull(deniedTtl, "deniedTtl");
    this.cache = new AuthCache<>(maxEntries, ticker);
  }

  /**
   * May {@code user} do {@code verb} on the non-resource {@code path}?
   *
   * @param verb the lowercase verb ({@code get} for GET and HEAD)
   * @throws DelegationException if the review could not be made
   */
  public AuthorizationDecision authorize(AuthenticatedUser user, String path, String verb) {
    Key key = new Key(user.name(), user.uid(), user.groups(), user.extra(), path, verb);
    return cache.get(key, () -> review(key), d -> d.allowed() ? allowedTtl : deniedTtl);
  }

  private AuthorizationDecision review(Key key) {
    SubjectAccessReview request = new SubjectAccessReviewBuilder().withNewSpec()
        .withUser(key.user()).withUid(key.uid().isEmpty() ? null : key.uid())
        .withGroups(key.groups()).withExtra(key.extra().isEmpty() ? null : key.extra())
        .withNewNonResourceAttributes().withPath(key.path()).withVerb(key.verb()).endNonResourceAttributes()
        .endSpec().build();
    SubjectAccessReview answer;
    try {
      answer = client.authorization().v1().subjectAccessReview().create(request);
    } catch (RuntimeException e) {
      throw new DelegationException("SubjectAccessReview failed: " + e.getMessage(), e);
    }
    SubjectAccessReviewStatus status = answer == null ? null : answer.getStatus();
    if (status == null) {
      return new AuthorizationDecision(false, "");
    }
    return new AuthorizationDecision(Boolean.TRUE.equals(status.getAllowed()), status.getReason());
  }
}
