package io.berth.component;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatusBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewStatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.utils.ResponseProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * fabric8's mock API server answering TokenReview and SubjectAccessReview as a real API server would: tokens map to
 * users, {@code "user verb path"} entries are allowed, everything else is denied with a reason. Counts the reviews
 * (per token and per user), keeps the access reviews it answered, and can fail either kind with a 500 or delay them.
 * Thread-safe: the maps and counters are concurrent, the switches volatile.
 */
final class ReviewingApiServer implements AutoCloseable {

  static final String TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
  static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
  static final String DENIED_REASON = "no RBAC policy matched";

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private final KubernetesMockServer server = new KubernetesMockServer(false);
  final Map<String, AuthenticatedUser> tokens = new ConcurrentHashMap<>();
  final Set<String> allowed = ConcurrentHashMap.newKeySet();
  final Map<String, AtomicInteger> tokenReviewsByToken = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> accessReviewsByUser = new ConcurrentHashMap<>();
  final AtomicInteger tokenReviews = new AtomicInteger();
  final AtomicInteger accessReviews = new AtomicInteger();
  final List<SubjectAccessReview> accessReviewed = new CopyOnWriteArrayList<>();
  volatile boolean tokenReviewsFail;
  volatile boolean accessReviewsFail;
  volatile long delayMillis;

  ReviewingApiServer() {
    server.init();
    server.expect().post().withPath(TOKEN_REVIEWS).andReply(new Responder(this::tokenReview,
        () -> tokenReviewsFail)).always();
    server.expect().post().withPath(ACCESS_REVIEWS).andReply(new Responder(this::accessReview,
        () -> accessReviewsFail)).always();
  }

  /** A client of this server that does not retry failed requests (so that failures are quick). */
  KubernetesClient client() {
    Config config;
    try (KubernetesClient template = server.createClient()) {
      config = new ConfigBuilder(template.getConfiguration()).withRequestRetryBackoffLimit(0).build();
    }
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private Object tokenReview(RecordedRequest request) {
    TokenReview review = JSON.unmarshal(request.getUtf8Body(), TokenReview.class);
    String token = review.getSpec().getToken();
    tokenReviews.incrementAndGet();
    tokenReviewsByToken.computeIfAbsent(token, t -> new AtomicInteger()).incrementAndGet();
    AuthenticatedUser user = tokens.get(token);
    review.setStatus(user == null
        ? new TokenReviewStatusBuilder().withAuthenticated(false).withError("invalid bearer token").build()
        : new TokenReviewStatusBuilder().withAuthenticated(true).withNewUser().withUsername(user.name())
            .withUid(user.uid()).withGroups(user.groups()).withExtra(user.extra()).endUser().build());
    return review;
  }

  private Object accessReview(RecordedRequest request) {
    SubjectAccessReview review = JSON.unmarshal(request.getUtf8Body(), SubjectAccessReview.class);
    accessReviews.incrementAndGet();
    accessReviewed.add(review);
    String user = review.getSpec().getUser();
    accessReviewsByUser.computeIfAbsent(user, u -> new AtomicInteger()).incrementAndGet();
    var attributes = review.getSpec().getNonResourceAttributes();
    boolean allow = allowed.contains(user + " " + attributes.getVerb() + " " + attributes.getPath());
    review.setStatus(allow ? new SubjectAccessReviewStatusBuilder().withAllowed(true).withReason("allowed by test")
        .build() : new SubjectAccessReviewStatusBuilder().withAllowed(false).withReason(DENIED_REASON).build());
    return review;
  }

  @Override
  public void close() {
    server.destroy();
  }

  /** Answers 201 with the review, or 500 with a Status while failing. */
  private final class Responder implements ResponseProvider<Object> {
    private final Function<RecordedRequest, Object> answer;
    private final BooleanSupplier failing;
    // written by the mock server before use; volatile for its threads
    private volatile Headers headers = Headers.builder().add("Content-Type", "application/json").build();

    Responder(Function<RecordedRequest, Object> answer, BooleanSupplier failing) {
      this.answer = answer;
      this.failing = failing;
    }

    @Override
    public int getStatusCode(RecordedRequest request) {
      return failing.getAsBoolean() ? 500 : 201;
    }

    @Override
    public Object getBody(RecordedRequest request) {
      long delay = delayMillis;
      if (delay > 0) {
        try {
          Thread.sleep(delay);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (failing.getAsBoolean()) {
        return new StatusBuilder().withStatus("Failure").withCode(500).withMessage("etcd is unavailable").build();
      }
      return answer.apply(request);
    }

    @Override
    public Headers getHeaders() {
      return headers;
    }

    @Override
    public void setHeaders(Headers headers) {
      this.headers = headers;
    }
  }
}
