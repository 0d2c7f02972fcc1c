package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The endpoint over real HTTP on a free port. */
class DaemonEndpointTest {

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<String> reasons = new CopyOnWriteArrayList<>(List.of("informers have not synced"));
  private DaemonEndpoint endpoint;

  @AfterEach
  void stop() {
    if (endpoint != null) {
      endpoint.stop();
    }
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send("GET", path);
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(5)).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private void start() throws IOException {
    endpoint = DaemonEndpoint.start(0, registry, () -> List.copyOf(reasons));
  }

  @Test
  void anInterceptorSeesTheRequestFirstAndMayAnswerInTheHandlersPlace() throws Exception {
    EndpointRoutes routes = EndpointRoutes.forDaemon(registry, () -> List.of());
    routes.get("/debug/x", uri -> EndpointRoutes.Response.text(200, "local"));
    routes.post("/debug/x", (uri, body) -> EndpointRoutes.Response.text(200, "local post " + body));
    List<EndpointRoutes.Request> seen = new CopyOnWriteArrayList<>();
    routes.intercept("/debug/", request -> {
      seen.add(request);
      return request.uri().getQuery() != null && request.uri().getQuery().contains("away")
          ? java.util.Optional.of(new EndpointRoutes.Response(201, EndpointRoutes.TEXT,
              "intercepted " + new String(request.body(), java.nio.charset.StandardCharsets.UTF_8),
              java.util.Map.of("X-Test", "yes")))
          : java.util.Optional.empty();
    });
    endpoint = DaemonEndpoint.start(new java.net.InetSocketAddress(0), routes);
    assertThat(get("/debug/x").body()).isEqualTo("local");
    HttpResponse<String> away = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port()
        + "/debug/x?away=1")).header("X-Caller", "me").POST(HttpRequest.BodyPublishers.ofString("b"))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(away.statusCode()).isEqualTo(201);
    assertThat(away.body()).isEqualTo("intercepted b");
    assertThat(away.headers().firstValue("X-Test")).hasValue("yes");
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1).method()).isEqualTo("POST");
    assertThat(seen.get(1).header("x-CALLER")).hasValue("me");
    assertThat(seen.get(1).secure()).isFalse();
    assertThat(get("/healthz").body()).as("other paths are not intercepted").isEqualTo("ok");
    assertThat(seen).hasSize(2);
  }

  @Test
  void portZeroBindsAFreePort() throws Exception {
    start();
    assertThat(endpoint.port()).isPositive();
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
  }

  @Test
  void healthzIsOkWhileServing() throws Exception {
    start();
    HttpResponse<String> response = get("/healthz");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
  }

  @Test
  void livezIsOkWhileServingLikeHealthz() throws Exception {
    start();
    HttpResponse<String> response = get("/livez");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
    assertThat(get("/livez/extra").statusCode()).isEqualTo(404);
    assertThat(send("PUT", "/livez").statusCode()).isEqualTo(405);
  }

  @Test
  void aPathRegisteredAfterStartIsServed() throws Exception {
    EndpointRoutes routes = EndpointRoutes.forDaemon(registry, ReadinessCheck.ALWAYS_READY);
    endpoint = DaemonEndpoint.start(new java.net.InetSocketAddress(0), routes);
    assertThat(get("/debug/explain").statusCode()).isEqualTo(404);
    routes.get("/debug/explain", uri -> EndpointRoutes.Response.text(200, "query " + uri.getQuery()));
    assertThat(get("/debug/explain?pod=a").body()).isEqualTo("query pod=a");
    assertThat(send("HEAD", "/debug/explain").body()).isEmpty();
    assertThatThrownBy(() -> routes.get("/debug/explain", uri -> null)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> routes.get("debug", uri -> null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void prefixRoutesServeSubPathsAndPostRoutesReceiveTheBody() throws Exception {
    EndpointRoutes routes = EndpointRoutes.forDaemon(registry, ReadinessCheck.ALWAYS_READY);
    routes.getPrefix("/debug/explain/", uri -> EndpointRoutes.Response.text(200, "pod " + uri.getPath()));
    routes.getPrefix("/debug/explain/special/", uri -> EndpointRoutes.Response.text(200, "special"));
    routes.post("/debug/simulate", (uri, body) -> EndpointRoutes.Response.text(201, "got " + body));
    endpoint = DaemonEndpoint.start(new java.net.InetSocketAddress(0), routes);
    assertThat(get("/debug/explain/ns/p").body()).isEqualTo("pod /debug/explain/ns/p");
    assertThat(get("/debug/explain/special/x").body()).isEqualTo("special");
    assertThat(get("/debug/explain").statusCode()).isEqualTo(404);
    HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/debug/simulate"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"Pod\"}")).build();
    HttpResponse<String> posted = http.send(post, HttpResponse.BodyHandlers.ofString());
    assertThat(posted.statusCode()).isEqualTo(201);
    assertThat(posted.body()).isEqualTo("got {\"kind\":\"Pod\"}");
    HttpResponse<String> getOfPost = get("/debug/simulate");
    assertThat(getOfPost.statusCode()).isEqualTo(405);
    assertThat(getOfPost.headers().firstValue("Allow")).hasValue("POST");
    assertThat(send("POST", "/debug/explain/ns/p").statusCode()).isEqualTo(405);
    assertThat(routes.paths()).contains("/debug/explain/*", "/debug/simulate");
    assertThatThrownBy(() -> routes.post("/debug/simulate", (u, b) -> null))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void readyzIs503WithTheReasonsUntilTheCheckPasses() throws Exception {
    start();
    reasons.add("not leading");
    HttpResponse<String> unready = get("/readyz");
    assertThat(unready.statusCode()).isEqualTo(503);
    assertThat(unready.body()).isEqualTo("informers have not synced\nnot leading\n");
    reasons.clear();
    HttpResponse<String> ready = get("/readyz");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).isEqualTo("ok");
  }

  @Test
  void metricsIsPrometheusTextOfTheRegistry() throws Exception {
    Counter.builder("berth.test.events").tag("kind", "a").register(registry).increment(3);
    start();
    HttpResponse<String> response = get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    assertThat(response.body()).contains("# TYPE berth_test_events_total counter")
        .contains("berth_test_events_total{kind=\"a\"} 3.0");
  }

  @Test
  void otherPathsAre404AndOtherMethods405() throws Exception {
    start();
    assertThat(get("/").statusCode()).isEqualTo(404);
    assertThat(get("/healthzz").statusCode()).isEqualTo(404);
    assertThat(get("/healthz/extra").statusCode()).isEqualTo(404);
    assertThat(send("POST", "/healthz").statusCode()).isEqualTo(405);
    assertThat(send("HEAD", "/readyz").statusCode()).isEqualTo(503);
  }

  @Test
  void servesConcurrentRequestsConsistently() throws Exception {
    Counter counter = Counter.builder("berth.test.concurrent").register(registry);
    start();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String path = List.of("/healthz", "/readyz", "/metrics").get(i % 3);
        results.add(pool.submit(() -> {
          counter.increment();
          return get(path).statusCode();
        }));
      }
      // Flip readiness while requests are in flight; each answer is one of the two consistent states.
      reasons.clear();
      for (Future<Integer> f : results) {
        assertThat(f.get(30, TimeUnit.SECONDS)).isIn(200, 503);
      }
      assertThat(get("/metrics").body()).contains("berth_test_concurrent_total 200.0");
      assertThat(get("/readyz").statusCode()).isEqualTo(200);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void stopReleasesThePort() throws Exception {
    start();
    int port = endpoint.port();
    endpoint.stop();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
        .timeout(Duration.ofSeconds(5)).build();
    assertThatThrownBy(() -> http.send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(ConnectException.class);
    endpoint.stop(); // idempotent
    endpoint = DaemonEndpoint.start(port, registry, ReadinessCheck.ALWAYS_READY);
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
  }
}
