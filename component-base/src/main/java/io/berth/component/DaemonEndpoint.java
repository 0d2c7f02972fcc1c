package io.berth.component;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemons' HTTP endpoint on the JDK {@link HttpServer}, bound on all interfaces as kube-controller-manager's
 * {@code --bind-address} default: {@code GET /healthz} answers 200 {@code ok} while the process serves at all;
 * {@code GET /readyz} answers 200 {@code ok} when the {@link ReadinessCheck} passes and 503 with one failing reason
 * per line otherwise; {@code GET /metrics} answers the Prometheus text exposition (format 0.0.4) of a
 * {@link PrometheusMeterRegistry}. Other paths are 404, other methods on these paths 405.
 *
 * <p>Port 0 binds a free port; the bound port is logged as {@code listening on :PORT} and returned by
 * {@link #port()}. Requests are served by a small pool of daemon threads. Thread-safe: immutable after
 * {@link #start}; {@link #stop()} is idempotent.
 */
public final class DaemonEndpoint implements AutoCloseable {

  /** The Content-Type of {@code /metrics}: Prometheus text format 0.0.4. */
  public static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final Logger log = LoggerFactory.getLogger(DaemonEndpoint.class);
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final int THREADS = 2;

  private final HttpServer server;
  private final ExecutorService executor;

  private DaemonEndpoint(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds {@code port} (0 for a free one) and starts serving.
   *
   * @throws IOException if the port cannot be bound
   */
  public static DaemonEndpoint start(int port, PrometheusMeterRegistry registry, ReadinessCheck readiness)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(readiness, "readiness");
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "daemon-endpoint-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/healthz", exchange -> serve(exchange, "/healthz", () -> respond(exchange, 200, TEXT,
        "ok")));
    server.createContext("/readyz", exchange -> serve(exchange, "/readyz", () -> {
      List<String> reasons = readiness.unreadyReasons();
      if (reasons.isEmpty()) {
        respond(exchange, 200, TEXT, "ok");
      } else {
        respond(exchange, 503, TEXT, String.join("\n", reasons) + "\n");
      }
    }));
    server.createContext("/metrics", exchange -> serve(exchange, "/metrics",
        () -> respond(exchange, 200, METRICS_CONTENT_TYPE, registry.scrape())));
    server.createContext("/", exchange -> {
      try (exchange) {
        respond(exchange, 404, TEXT, "404 page not found\n");
      }
    });
    server.start();
    DaemonEndpoint endpoint = new DaemonEndpoint(server, executor);
    log.info("listening on :{}", endpoint.port());
    return endpoint;
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Stops serving at once (in-flight exchanges are cut) and releases the port. Idempotent. */
  public void stop() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private interface Handler {
    void handle() throws IOException;
  }

  private static void serve(HttpExchange exchange, String path, Handler handler) throws IOException {
    try (exchange) {
      // HttpServer matches contexts by prefix; serve the exact path only, as kube's mux does.
      if (!exchange.getRequestURI().getPath().equals(path)) {
        respond(exchange, 404, TEXT, "404 page not found\n");
        return;
      }
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(exchange, 405, TEXT, "method not allowed\n");
        return;
      }
      handler.handle();
    } catch (RuntimeException e) {
      log.warn("{} failed", path, e);
      throw e;
    }
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
