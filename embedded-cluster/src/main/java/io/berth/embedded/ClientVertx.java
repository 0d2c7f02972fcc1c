package io.berth.embedded;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one Vert.x instance behind every fabric8 client an {@link EmbeddedCluster} builds. Left to itself, fabric8's
 * Vert.x transport starts a new Vert.x for each client, each with twice as many event-loop threads as there are
 * cores and its own timers; a test or a simulation with a handful of clients (a scheduler's, a controller
 * manager's, an event recorder's, a few watchers') then runs a dozen client event loops on two cores, each waking
 * for a fraction of the connections. Here all the cluster's clients share {@code cores} event loops (connections
 * are spread over them as Vert.x assigns them), with the options fabric8 gives its own instance (daemon threads,
 * no file caching or class-path resolving). Clients keep their own connection pools, settings and lifecycle:
 * closing a client does not close this instance; {@link #close()} does, after the cluster's clients.
 *
 * <p>Thread-safe: the instance is created on first use under {@code this}; {@link #factory()} may be called from
 * any thread.
 */
final class ClientVertx implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClientVertx.class);
  private static final String DISABLE_DNS_RESOLVER = "vertx.disableDnsResolver";
  /**
   * Experimental, for the end-to-end benchmarks: the clients speak HTTP/2 with prior knowledge ({@code h2c}) to the
   * plain-HTTP server, all requests of a client multiplexed on one connection, instead of HTTP/1.1 keep-alive with a
   * connection per request in flight. Off by default; ignored when the server speaks TLS.
   */
  static final String CLIENT_H2C = "berth.embedded.clientH2c";

  // guarded by this; null until the first client is built
  private Vertx vertx;
  private Vertx5HttpClientFactory factory;
  // guarded by this
  private boolean closed;
  private final int eventLoops;

  private final boolean h2c;

  ClientVertx(int eventLoops) {
    this(eventLoops, false);
  }

  /** With {@code h2c}, the clients' HTTP requests use HTTP/2 with prior knowledge (for a plain-HTTP server only). */
  ClientVertx(int eventLoops, boolean h2c) {
    if (eventLoops < 1) {
      throw new IllegalArgumentException("client event loops must be positive, got " + eventLoops);
    }
    this.eventLoops = eventLoops;
    this.h2c = h2c;
  }

  /** The fabric8 HTTP client factory on the shared instance (created now if needed). */
  synchronized HttpClient.Factory factory() {
    if (closed) {
      throw new IllegalStateException("the embedded cluster is closed");
    }
    if (factory == null) {
      vertx = newVertx(new VertxOptions().setEventLoopPoolSize(eventLoops).setUseDaemonThread(true)
          .setFileSystemOptions(new FileSystemOptions().setFileCachingEnabled(false)
              .setClassPathResolvingEnabled(false)));
      factory = h2c ? new PriorKnowledgeH2c(vertx) : new Vertx5HttpClientFactory(vertx);
    }
    return factory;
  }

  /**
   * fabric8's factory on the shared instance, its HTTP requests over HTTP/2 with prior knowledge, one connection per
   * client. Only for a plain-HTTP server: fabric8 turns TLS on in the options of every client and lets the URL's
   * scheme decide per request, so the options cannot tell.
   */
  private static final class PriorKnowledgeH2c extends Vertx5HttpClientFactory {
    PriorKnowledgeH2c(Vertx vertx) {
      super(vertx);
    }

    @Override
    protected void additionalConfig(WebClientOptions http, WebSocketClientOptions webSockets, PoolOptions pool) {
      http.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
      pool.setHttp2MaxSize(1);
    }
  }

  /**
   * A Vert.x with its asynchronous DNS resolver off (names resolve through the JDK), as fabric8 creates its own:
   * the resolver is chosen while the instance is created, from a system property set only around the creation.
   */
  private static Vertx newVertx(VertxOptions options) {
    String original = System.getProperty(DISABLE_DNS_RESOLVER);
    try {
      System.setProperty(DISABLE_DNS_RESOLVER, "true");
      return Vertx.vertx(options);
    } finally {
      if (original == null) {
        System.clearProperty(DISABLE_DNS_RESOLVER);
      } else {
        System.setProperty(DISABLE_DNS_RESOLVER, original);
      }
    }
  }

  /** Closes the shared instance (its clients' connections with it); later {@link #factory()} calls fail. */
  @Override
  public void close() {
    Vertx v;
    synchronized (this) {
      closed = true;
      v = vertx;
      vertx = null;
      factory = null;
    }
    if (v != null) {
      try {
        v.close().await(10, TimeUnit.SECONDS);
      } catch (TimeoutException | RuntimeException e) {
        // the threads are daemons: a slow or failed close does not keep the JVM alive
        LOG.warn("closing the embedded cluster's client Vert.x: {}", e.toString());
      }
    }
  }
}
