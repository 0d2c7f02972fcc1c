package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secure endpoint over real HTTPS, with fabric8's mock API server answering the TokenReviews and
 * SubjectAccessReviews: 401 without or with a bad token, 403 without rights, 200 with them, always-allowed paths
 * open, cached reviews, API failures, both certificate modes, and many concurrent requests.
 */
class SecureEndpointIT {

  private static final Duration TTL = Duration.ofSeconds(10);
  private static final AuthenticatedUser ALICE = new AuthenticatedUser("alice", "uid-alice",
      List.of("system:authenticated", "monitoring"), Map.of("scopes", List.of("metrics")));
  private static final AuthenticatedUser BOB = new AuthenticatedUser("bob", "", List.of("system:authenticated"),
      Map.of());

  @TempDir
  Path dir;

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final FakeTicker ticker = new FakeTicker(false);
  private final List<String> unready = new ArrayList<>();
  private ReviewingApiServer api;
  private KubernetesClient client;
  private EndpointRoutes routes;
  private DaemonEndpoint endpoint;
  private HttpClient https;

  @BeforeEach
  void setUp() {
    api = new ReviewingApiServer();
    api.tokens.put("alice-token", ALICE);
    api.tokens.put("bob-token", BOB);
    api.allowed.add("alice get /metrics");
    api.allowed.add("alice get /debug/explain");
    api.allowed.add("alice get /nope");
    client = api.client();
    Counter.builder("berth.secure.test").register(registry).increment(7);
    routes = EndpointRoutes.forDaemon(registry, () -> List.copyOf(unready));
  }

  @AfterEach
  void tearDown() {
    if (endpoint != null) {
      endpoint.stop();
    }
    client.close();
    api.close();
  }

  private void startSelfSigned() throws Exception {
    ServingCertificate cert = SelfSignedCertificate.generate(List.of("localhost", "127.0.0.1"), Clock.systemUTC());
    start(cert);
  }

  private void start(ServingCertificate cert) throws Exception {
    DelegatedAuthFilter filter = new DelegatedAuthFilter(
        new DelegatingAuthenticator(client, TTL, ticker, DelegatingAuthenticator.MAX_ENTRIES),
        new DelegatingAuthorizer(client, TTL, TTL, ticker, DelegatingAuthorizer.MAX_ENTRIES),
        SecureServingSettings.DEFAULT_ALWAYS_ALLOW_PATHS);
    endpoint = SecureEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        TlsContexts.server(cert), routes, filter);
    https = TestCertificates.trusting(cert.certificate());
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return send("GET", path, token);
  }

  private HttpResponse<String> send(String method, String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://localhost:" + endpoint.port() + path))
        .version(HttpClient.Version.HTTP_1_1).method(method, HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(20));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void alwaysAllowedPathsAreServedWithoutAToken() throws Exception {
    startSelfSigned();
    assertThat(get("/healthz", null).body()).isEqualTo("ok");
    assertThat(get("/livez", null).statusCode()).isEqualTo(200);
    assertThat(get("/readyz", null).statusCode()).isEqualTo(200);
    unready.add("informers have not synced");
    HttpResponse<String> readyz = get("/readyz", null);
    assertThat(readyz.statusCode()).isEqualTo(503);
    assertThat(readyz.body()).isEqualTo("informers have not synced\n");
    assertThat(api.tokenReviews).hasValue(0);
  }

  @Test
  void noTokenIs401WithoutAnyReview() throws Exception {
    startSelfSigned();
    HttpResponse<String> response = get("/metrics", null);
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).isEqualTo("Unauthorized\n");
    HttpRequest basic = HttpRequest.newBuilder(URI.create("https://localhost:" + endpoint.port() + "/metrics"))
        .version(HttpClient.Version.HTTP_1_1).header("Authorization", "Basic YWxpY2U6c2VjcmV0").build();
    assertThat(https.send(basic, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    assertThat(get("/metrics", "").statusCode()).isEqualTo(401);
    assertThat(api.tokenReviews).hasValue(0);
  }

  @Test
  void aTokenTheApiServerRejectsIs401() throws Exception {
    startSelfSigned();
    HttpResponse<String> response = get("/metrics", "stolen-token");
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).isEqualTo("Unauthorized\n").doesNotContain("berth_secure_test");
    assertThat(api.tokenReviews).hasValue(1);
    assertThat(api.accessReviews).hasValue(0);
    get("/metrics", "stolen-token");
    assertThat(api.tokenReviews).as("rejections are not cached").hasValue(2);
  }

  @Test
  void aTokenWithoutRightsIs403WithTheReason() throws Exception {
    startSelfSigned();
    HttpResponse<String> response = get("/metrics", "bob-token");
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(response.body()).isEqualTo("Forbidden: \"/metrics\", Reason: \"no RBAC policy matched\"\n")
        .doesNotContain("berth_secure_test");
  }

  @Test
  void anAllowedTokenGetsThePrometheusTextAndTheReviewCarriesTheUser() throws Exception {
    startSelfSigned();
    HttpResponse<String> response = get("/metrics", "alice-token");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue(EndpointRoutes.METRICS_CONTENT_TYPE);
    assertThat(response.body()).contains("berth_secure_test_total 7.0");
    SubjectAccessReview review = api.accessReviewed.get(0);
    assertThat(review.getSpec().getUser()).isEqualTo("alice");
    assertThat(review.getSpec().getUid()).isEqualTo("uid-alice");
    assertThat(review.getSpec().getGroups()).containsExactly("system:authenticated", "monitoring");
    assertThat(review.getSpec().getExtra()).isEqualTo(Map.of("scopes", List.of("metrics")));
    assertThat(review.getSpec().getNonResourceAttributes().getPath()).isEqualTo("/metrics");
    assertThat(review.getSpec().getNonResourceAttributes().getVerb()).isEqualTo("get");
    assertThat(review.getSpec().getResourceAttributes()).isNull();
    assertThat(send("HEAD", "/metrics", "alice-token").statusCode()).isEqualTo(200);
    assertThat(send("POST", "/metrics", "alice-token").statusCode()).as("post is another verb").isEqualTo(403);
    assertThat(api.accessReviewed).extracting(r -> r.getSpec().getNonResourceAttributes().getVerb())
        .containsExactly("get", "post");
  }

  @Test
  void reviewsAreCachedForTheirTimeToLive() throws Exception {
    startSelfSigned();
    for (int i = 0; i < 3; i++) {
      assertThat(get("/metrics", "alice-token").statusCode()).isEqualTo(200);
      assertThat(get("/metrics", "bob-token").statusCode()).isEqualTo(403);
    }
    assertThat(api.tokenReviews).hasValue(2);
    assertThat(api.accessReviews).hasValue(2);
    ticker.advance(TTL.toNanos() - 1);
    get("/metrics", "alice-token");
    assertThat(api.tokenReviews).hasValue(2);
    ticker.advance(1);
    api.allowed.remove("alice get /metrics");
    assertThat(get("/metrics", "alice-token").statusCode()).as("rights revoked, cache expired").isEqualTo(403);
    assertThat(api.tokenReviews).hasValue(3);
    assertThat(api.accessReviews).hasValue(3);
    assertThat(api.tokenReviewsByToken.keySet()).containsExactlyInAnyOrder("alice-token", "bob-token");
  }

  @Test
  void aFailingTokenReviewIs401AndAFailingAccessReviewIs500NeitherCached() throws Exception {
    startSelfSigned();
    api.tokenReviewsFail = true;
    assertThat(get("/metrics", "alice-token").statusCode()).isEqualTo(401);
    api.tokenReviewsFail = false;
    api.accessReviewsFail = true;
    HttpResponse<String> failed = get("/metrics", "alice-token");
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.body()).startsWith("Internal Server Error: \"/metrics\": SubjectAccessReview failed")
        .doesNotContain("berth_secure_test");
    api.accessReviewsFail = false;
    assertThat(get("/metrics", "alice-token").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownPathsNeedAuthenticationBeforeThe404() throws Exception {
    startSelfSigned();
    assertThat(get("/nope", null).statusCode()).isEqualTo(401);
    assertThat(get("/nope", "alice-token").statusCode()).isEqualTo(404);
  }

  @Test
  void aRegisteredPathIsServedOnBothEndpoints() throws Exception {
    routes.get("/debug/explain", uri -> EndpointRoutes.Response.text(200, "explained " + uri.getQuery()));
    startSelfSigned();
    try (DaemonEndpoint plain = DaemonEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        routes)) {
      HttpResponse<String> viaPlain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + plain.port() + "/debug/explain?pod=a")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(viaPlain.body()).isEqualTo("explained pod=a");
      assertThat(get("/debug/explain?pod=a", null).statusCode()).isEqualTo(401);
      assertThat(get("/debug/explain?pod=a", "alice-token").body()).isEqualTo("explained pod=a");
      assertThat(get("/debug/explain", "bob-token").statusCode()).isEqualTo(403);
    }
  }

  @Test
  void aProvidedCertificateAndKeyAreServed() throws Exception {
    KeyPair pair = TestCertificates.rsa();
    Path cert = TestCertificates.write(dir, "tls.crt", TestCertificates.pem(TestCertificates.selfSigned(pair)));
    Path key = TestCertificates.write(dir, "tls.key", TestCertificates.pem(pair.getPrivate()));
    start(PemFiles.load(cert, SecureServingOptions.TLS_CERT_FILE, key, SecureServingOptions.TLS_PRIVATE_KEY_FILE));
    assertThat(get("/livez", null).body()).isEqualTo("ok");
    assertThat(get("/metrics", "alice-token").body()).contains("berth_secure_test_total 7.0");
  }

  @Test
  void onlyTls12AndTls13AreOffered() throws Exception {
    ServingCertificate cert = SelfSignedCertificate.generate(List.of("localhost"), Clock.systemUTC());
    assertThat(TlsContexts.serverParameters(TlsContexts.server(cert)).getProtocols())
        .containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(TlsContexts.serverParameters(TlsContexts.server(cert)).getNeedClientAuth()).isFalse();
  }

  @Test
  void manyConcurrentRequestsGetTheRightAnswersWithOneReviewPerTokenAndDecision() throws Exception {
    api.delayMillis = 50; // hold the first reviews open while the other requests arrive
    api.tokens.put("carol-token", new AuthenticatedUser("carol", "", List.of("ops"), Map.of()));
    api.allowed.add("carol get /metrics");
    startSelfSigned();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<String> tokens = List.of("alice-token", "bob-token", "carol-token", "bad-token");
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < 240; i++) {
        String token = tokens.get(i % tokens.size());
        String path = i % 5 == 0 ? "/healthz" : "/metrics";
        results.add(pool.submit(() -> get(path, token).statusCode()));
      }
      for (int i = 0; i < results.size(); i++) {
        String token = tokens.get(i % tokens.size());
        int expected = i % 5 == 0 ? 200 : switch (token) {
          case "alice-token", "carol-token" -> 200;
          case "bob-token" -> 403;
          default -> 401;
        };
        assertThat(results.get(i).get(60, TimeUnit.SECONDS)).as("request %d with %s", i, token).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
    for (String good : List.of("alice-token", "bob-token", "carol-token")) {
      assertThat(api.tokenReviewsByToken.get(good)).as(good).hasValue(1);
    }
    assertThat(api.tokenReviewsByToken.get("bad-token").get()).isBetween(1, 48);
    for (String user : List.of("alice", "bob", "carol")) {
      assertThat(api.accessReviewsByUser.get(user)).as(user).hasValue(1);
    }
  }
}
