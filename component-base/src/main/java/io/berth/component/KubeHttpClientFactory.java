package io.berth.component;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.Utils;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.List;
import java.util.Locale;

/**
 * fabric8's Vert.x 5 HTTP client factory with client-go's transport: over TLS, HTTP/2 is offered with ALPN (falling
 * back to HTTP/1.1 when the server does not take it) and every request of the client is multiplexed on one
 * connection. fabric8's own factory keeps HTTP/1.1 with a pool of up to 8,192 connections, so a daemon with N requests
 * in flight holds N connections, each with its own TLS handshake and its own encryption state: against a real
 * kube-apiserver the scheduler opened ~190 of them during a backlog of bindings and events, where kube-scheduler
 * (client-go) keeps one HTTP/2 connection.
 *
 * <p>With one HTTP/2 connection, requests beyond the server's concurrent-stream limit (kube-apiserver's
 * {@code --http2-max-streams-per-connection}, 250 by default) wait in the pool's queue (Go's transport would open a
 * second connection there; the daemons' request concurrency stays below the limit). Flow-control windows keep
 * Vert.x's defaults (1 MiB per stream, 16 MiB per connection), large enough that a paged list is not throttled on
 * loopback. When the server answers with HTTP/1.1, the pool still opens a connection per request in flight, but one
 * connection attempt at a time (Vert.x reserves a whole HTTP/2 connection's share of the pool for each attempt).
 *
 * <p>Not changed: plain-HTTP servers (no {@code h2c} upgrade is attempted: an HTTP/1.1 server would see an
 * {@code Upgrade} header it need not expect), HTTP/2 turned off (see {@link #offersHttp2}), and WebSocket
 * connections (watches, exec), which Vert.x opens with its own client over HTTP/1.1, one connection per WebSocket as
 * before. One factory per client (the decision is the client's {@link Config}'s); each client built from it owns its
 * own Vert.x instance, as with fabric8's factory. Immutable; fabric8 calls {@link #additionalConfig} on the building
 * thread.
 */
final class KubeHttpClientFactory extends Vertx5HttpClientFactory {

  /** One HTTP/2 connection per client, as client-go keeps one per host. */
  static final int HTTP2_CONNECTIONS = 1;

  private final boolean http2;

  private KubeHttpClientFactory(boolean http2) {
    this.http2 = http2;
  }

  /** The factory for a client of {@code config}: HTTP/2 if the server is reached over TLS and HTTP/2 is not off. */
  static KubeHttpClientFactory forConfig(Config config) {
    return new KubeHttpClientFactory(offersHttp2(config));
  }

  /**
   * Whether a client of {@code config} offers HTTP/2: an {@code https} server, and HTTP/2 not turned off, neither by
   * the config's {@code http2Disable} nor by fabric8's own switch, the system property {@code http2.disable} or the
   * environment variable {@code HTTP2_DISABLE} (fabric8 reads them only when it auto-configures, not for a
   * kubeconfig file, so they are honoured here for every config).
   */
  static boolean offersHttp2(Config config) {
    String url = config.getMasterUrl();
    return !config.isHttp2Disable() && !Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_HTTP2_DISABLE, false)
        && url != null && url.toLowerCase(Locale.ROOT).startsWith("https:");
  }

  /** Whether clients from this factory offer HTTP/2. */
  boolean http2() {
    return http2;
  }

  @Override
  protected void additionalConfig(WebClientOptions http, WebSocketClientOptions webSockets, PoolOptions pool) {
    if (!http2) {
      return;
    }
    http.setProtocolVersion(HttpVersion.HTTP_2)
        .setUseAlpn(true)
        .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
        // over TLS only (see forConfig); never an h2c upgrade on a plain connection
        .setHttp2ClearTextUpgrade(false);
    pool.setHttp2MaxSize(HTTP2_CONNECTIONS);
  }
}
