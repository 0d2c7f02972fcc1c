package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KubeClients#derive} against a real HTTP server that records each request's User-Agent and the client port
 * it came from: a derived client takes its tokens from its own bucket (never the base client's), sends its own
 * User-Agent, and reuses the base client's connection.
 */
class DerivedClientIT {

  /** One request as the server saw it. */
  private record Seen(String userAgent, int clientPort) {
  }

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private KubernetesClient base;
  private TokenBucketRateLimiter baseLimiter;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      seen.add(new Seen(exchange.getRequestHeaders().getFirst("User-Agent"), exchange.getRemoteAddress().getPort()));
      byte[] body = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}"
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    Config config = new ConfigBuilder(Config.empty())
        .withMasterUrl("http://127.0.0.1:" + server.getAddress().getPort()).withRequestRetryBackoffLimit(0).build();
    config.setUserAgent("berth-test");
    baseLimiter = new TokenBucketRateLimiter(1000, 1000, new FakeTicker(true));
    base = KubeClients.create(config, Optional.of(baseLimiter));
  }

  @AfterEach
  void stop() {
    base.close();
    server.stop(0);
  }

  private static ClientSettings settings(String userAgent) {
    return new ClientSettings(Optional.empty(), 5, 2, userAgent);
  }

  @Test
  void aDerivedClientSpendsItsOwnTokensAndSendsItsOwnUserAgent() {
    FakeTicker ticker = new FakeTicker(true);
    TokenBucketRateLimiter own = new TokenBucketRateLimiter(5, 2, ticker);
    KubernetesClient derived = KubeClients.derive(base, settings("berth-test/replicaset-controller"),
        Optional.of(own));

    for (int i = 0; i < 4; i++) {
      assertThat(derived.namespaces().withName("default").get()).isNotNull();
    }
    assertThat(own.acquired()).isEqualTo(4);
    assertThat(own.waits()).as("4 requests through a bucket of 2 at 5 qps").isEqualTo(2);
    assertThat(ticker.sleeps()).containsOnly(1_000_000_000L / 5);
    assertThat(baseLimiter.acquired()).as("the base client's bucket is untouched").isZero();
    assertThat(seen).extracting(Seen::userAgent).containsOnly("berth-test/replicaset-controller");

    base.namespaces().withName("default").get();
    assertThat(baseLimiter.acquired()).isEqualTo(1);
    assertThat(own.acquired()).isEqualTo(4);
    assertThat(seen.get(seen.size() - 1).userAgent()).isEqualTo("berth-test");
  }

  @Test
  void twoDerivedClientsHaveSeparateBuckets() throws Exception {
    TokenBucketRateLimiter first = new TokenBucketRateLimiter(1000, 1000, new FakeTicker(true));
    TokenBucketRateLimiter second = new TokenBucketRateLimiter(1000, 1000, new FakeTicker(true));
    KubernetesClient a = KubeClients.derive(base, settings("a"), Optional.of(first));
    KubernetesClient b = KubeClients.derive(base, settings("b"), Optional.of(second));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> calls = new CopyOnWriteArrayList<>();
      for (int i = 0; i < 20; i++) {
        KubernetesClient c = i % 2 == 0 ? a : b;
        calls.add(pool.submit(() -> c.namespaces().withName("default").get()));
      }
      for (Future<?> f : calls) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(first.acquired()).isEqualTo(10);
    assertThat(second.acquired()).isEqualTo(10);
    assertThat(baseLimiter.acquired()).isZero();
    assertThat(seen).extracting(Seen::userAgent).containsOnly("a", "b").hasSize(20);
  }

  @Test
  void anUnlimitedDerivedClientTakesNoTokenFromTheBase() {
    KubernetesClient derived = KubeClients.derive(base, new ClientSettings(Optional.empty(), -1, 0, "free"));
    for (int i = 0; i < 3; i++) {
      derived.namespaces().withName("default").get();
    }
    assertThat(baseLimiter.acquired()).isZero();
    assertThat(seen).extracting(Seen::userAgent).containsOnly("free").hasSize(3);
  }

  @Test
  void aDerivedClientReusesTheBaseClientsConnection() {
    base.namespaces().withName("default").get();
    KubernetesClient derived = KubeClients.derive(base, settings("d"), Optional.empty());
    derived.namespaces().withName("default").get();
    base.namespaces().withName("default").get();
    assertThat(seen).hasSize(3);
    assertThat(seen).extracting(Seen::clientPort).as("one kept-alive connection for both clients")
        .containsOnly(seen.get(0).clientPort());
  }
}
