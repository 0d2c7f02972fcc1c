package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The daemons' transport ({@link KubeHttpClientFactory} through {@link KubeClients}) over real TLS connections: to a
 * server that negotiates HTTP/2 with ALPN (as kube-apiserver does) concurrent requests share one connection; to the
 * embedded cluster over TLS, whose server offers no ALPN, the client falls back to HTTP/1.1; over plain HTTP and with
 * {@code http2Disable} nothing changes. The HTTP/2 server is a Vert.x server that answers every GET with a
 * ConfigMap and records each request's protocol and connection; it holds its answers until all the requests of a
 * round are in flight, so one connection can only have served them by multiplexing.
 */
class KubeHttpClientFactoryIT {

  @RegisterExtension
  static final EmbeddedClusterExtension TLS_CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().tls(true));

  private final Vertx vertx = Vertx.vertx();
  private final List<HttpVersion> versions = new CopyOnWriteArrayList<>();
  private final Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
  private final List<Consumer<HttpServerRequest>> observers = new CopyOnWriteArrayList<>();
  // requests not yet answered: the server answers them all once holdUntil of them are in flight
  private final List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
  private volatile int holdUntil;
  private String caPem;

  @AfterEach
  void closeServer() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void concurrentRequestsToAnHttp2ServerShareOneConnection() throws Exception {
    int port = startServer(true, true);
    int requests = 32;
    holdUntil = requests;
    try (KubernetesClient client = KubeClients.create(config("https", port).build(), Optional.empty())) {
      List<ConfigMap> got = getConcurrently(client, requests);
      assertThat(got).extracting(c -> c.getMetadata().getName()).hasSize(requests).doesNotHaveDuplicates();
    }
    assertThat(versions).hasSize(requests).containsOnly(HttpVersion.HTTP_2);
    assertThat(connections).hasSize(1);
  }

  @Test
  void http2DisableInTheConfigKeepsHttp11() throws Exception {
    int port = startServer(true, true);
    try (KubernetesClient client = KubeClients.create(config("https", port).withHttp2Disable(true).build(),
        Optional.empty())) {
      assertThat(getConcurrently(client, 4)).hasSize(4);
    }
    assertThat(versions).hasSize(4).containsOnly(HttpVersion.HTTP_1_1);
  }

  @Test
  void plainHttpStaysHttp11WithoutAnUpgrade() throws Exception {
    int port = startServer(false, false);
    List<String> upgrades = new CopyOnWriteArrayList<>();
    observers.add(r -> {
      if (r.getHeader("Upgrade") != null) {
        upgrades.add(r.getHeader("Upgrade"));
      }
    });
    try (KubernetesClient client = KubeClients.create(config("http", port).build(), Optional.empty())) {
      assertThat(getConcurrently(client, 4)).hasSize(4);
    }
    assertThat(versions).hasSize(4).containsOnly(HttpVersion.HTTP_1_1);
    assertThat(upgrades).isEmpty();
  }

  @Test
  void aTlsServerWithoutAlpnIsServedOverHttp11() throws Exception {
    Config config = TLS_CLUSTER.cluster().clientConfig();
    assertThat(config.getMasterUrl()).startsWith("https://");
    assertThat(KubeHttpClientFactory.offersHttp2(config)).isTrue();
    TLS_CLUSTER.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata()
        .withName("fallback").endMetadata().addToData("k", "v").build()).create();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (KubernetesClient client = KubeClients.create(config, Optional.empty())) {
      List<CompletableFuture<ConfigMap>> gets = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        gets.add(CompletableFuture.supplyAsync(
            () -> client.configMaps().inNamespace("default").withName("fallback").get(), pool));
      }
      for (CompletableFuture<ConfigMap> get : gets) {
        assertThat(get.get(30, TimeUnit.SECONDS).getData()).containsEntry("k", "v");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Starts the recording server (TLS with or without ALPN, or plain) and returns its port. */
  private int startServer(boolean tls, boolean alpn) throws Exception {
    HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(0);
    if (tls) {
      ServingCertificate certificate = SelfSignedCertificate.generate(List.of("127.0.0.1"), Clock.systemUTC());
      caPem = SelfSignedCertificate.pem(certificate.certificate());
      options.setSsl(true).setUseAlpn(alpn).setKeyCertOptions(new PemKeyCertOptions()
          .setCertValue(Buffer.buffer(caPem))
          .setKeyValue(Buffer.buffer(SelfSignedCertificate.pem(new JcaPKCS8Generator(certificate.key(), null)))));
    }
    HttpServer server = vertx.createHttpServer(options).requestHandler(this::record);
    return server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
  }

  // on the server's event loop; synchronized in case Vert.x spreads connections over several
  private synchronized void record(HttpServerRequest request) {
    versions.add(request.version());
    connections.add(request.connection());
    observers.forEach(c -> c.accept(request));
    held.add(request);
    if (held.size() >= holdUntil) {
      List<HttpServerRequest> answer = new ArrayList<>(held);
      held.clear();
      answer.forEach(KubeHttpClientFactoryIT::answer);
    }
  }

  private static void answer(HttpServerRequest request) {
    String path = request.path();
    String name = path.substring(path.lastIndexOf('/') + 1);
    String body = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
        + "\",\"namespace\":\"default\"}}";
    request.response().putHeader("Content-Type", "application/json").end(body);
  }

  private ConfigBuilder config(String scheme, int port) {
    ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(scheme + "://127.0.0.1:" + port)
        .withNamespace("default").withRequestRetryBackoffLimit(0).withConnectionTimeout(10_000)
        .withRequestTimeout(30_000);
    if (caPem != null) {
      config.withCaCertData(Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)));
    }
    return config;
  }

  /** {@code n} GETs of ConfigMaps {@code c-0..c-(n-1)}, all in flight at once (one thread each). */
  private static List<ConfigMap> getConcurrently(KubernetesClient client, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<CompletableFuture<ConfigMap>> gets = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String name = "c-" + i;
        gets.add(CompletableFuture.supplyAsync(
            () -> client.configMaps().inNamespace("default").withName(name).get(), pool));
      }
      List<ConfigMap> result = new ArrayList<>();
      for (CompletableFuture<ConfigMap> get : gets) {
        result.add(get.get(30, TimeUnit.SECONDS));
      }
      return result;
    } finally {
      pool.shutdownNow();
    }
  }
}
