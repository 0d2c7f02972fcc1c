package io.berth.component;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the daemons' HTTP endpoints on the JDK {@link HttpServer}: it serves the paths of an
 * {@link EndpointRoutes} table ({@code /healthz} {@code /livez} {@code /readyz} {@code /metrics} and whatever a
 * component registered), GET and HEAD, and POST where a component registered one (405 otherwise), exact paths or
 * registered prefixes (404 otherwise). The plain endpoint
 * ({@code --port}) is started here and binds all interfaces, as before; the secure one ({@code --secure-port}) is
 * started by {@link SecureEndpoint} on an {@code HttpsServer} with an authentication and authorization filter in
 * front of the same routes.
 *
 * <p>Port 0 binds a free port; the bound port is logged ({@code listening on :PORT} for the plain endpoint,
 * {@code secure serving on :PORT} for the secure one) and returned by {@link #port()}. Requests are served by a
 * small pool of daemon threads. Thread-safe: immutable after start; {@link #stop()} is idempotent.
 */
public final class DaemonEndpoint implements AutoCloseable {

  /** The Content-Type of {@code /metrics}: Prometheus text format 0.0.4. */
  public static final String METRICS_CONTENT_TYPE = EndpointRoutes.METRICS_CONTENT_TYPE;

  private static final Logger log = LoggerFactory.getLogger(DaemonEndpoint.class);
  private static final String TEXT = EndpointRoutes.TEXT;
  private static final int PLAIN_THREADS = 2;

  private final HttpServer server;
  private final ExecutorService executor;

  private DaemonEndpoint(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Binds {@code port} (0 for a free one) on all interfaces and serves the standard daemon paths over plain HTTP.
   *
   * @throws IOException if the port cannot be bound
   */
  public static DaemonEndpoint start(int port, PrometheusMeterRegistry registry, ReadinessCheck readiness)
      throws IOException {
    return start(new InetSocketAddress(port), EndpointRoutes.forDaemon(registry, readiness));
  }

  /**
   * Binds {@code address} (port 0 for a free one) and serves {@code routes} over plain HTTP.
   *
   * @throws IOException if the address cannot be bound
   */
  public static DaemonEndpoint start(InetSocketAddress address, EndpointRoutes routes) throws IOException {
    DaemonEndpoint endpoint = serve(HttpServer.create(address, 0), routes, Optional.empty(), PLAIN_THREADS,
        "daemon-endpoint");
    log.info("listening on :{}", endpoint.port());
    return endpoint;
  }

  /** Serves {@code routes} on a created, unstarted {@code server}, behind {@code filter} if given. */
  static DaemonEndpoint serve(HttpServer server, EndpointRoutes routes, Optional<Filter> filter, int threads,
      String threadName) {
    Objects.requireNonNull(routes, "routes");
    AtomicInteger count = new AtomicInteger();
    ExecutorService executor = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, threadName + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    boolean secure = filter.isPresent();
    var context = server.createContext("/", exchange -> dispatch(exchange, routes, secure));
    filter.ifPresent(context.getFilters()::add);
    server.start();
    return new DaemonEndpoint(server, executor);
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

  private static void dispatch(HttpExchange exchange, EndpointRoutes routes, boolean secure) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      Optional<EndpointRoutes.Handler> handler = routes.handler(path);
      Optional<EndpointRoutes.PostHandler> post = routes.postHandler(path);
      if (handler.isEmpty() && post.isEmpty()) {
        respond(exchange, 404, TEXT, "404 page not found\n");
        return;
      }
      String method = exchange.getRequestMethod();
      boolean isGet = method.equals("GET") || method.equals("HEAD");
      if (isGet ? handler.isEmpty() : !method.equals("POST") || post.isEmpty()) {
        exchange.getResponseHeaders().set("Allow", handler.isPresent() && post.isPresent() ? "GET, HEAD, POST"
            : handler.isPresent() ? "GET, HEAD" : "POST");
        respond(exchange, 405, TEXT, "method not allowed\n");
        return;
      }
      EndpointRoutes.Response response;
      try {
        byte[] body = new byte[0];
        if (!isGet) {
          body = exchange.getRequestBody().readNBytes(EndpointRoutes.MAX_POST_BODY + 1);
          if (body.length > EndpointRoutes.MAX_POST_BODY) {
            respond(exchange, 413, TEXT, "request body larger than " + EndpointRoutes.MAX_POST_BODY + " bytes\n");
            return;
          }
        }
        Optional<EndpointRoutes.Response> intercepted = Optional.empty();
        Optional<EndpointRoutes.Interceptor> interceptor = routes.interceptor(path);
        if (interceptor.isPresent()) {
          intercepted = interceptor.get().intercept(new EndpointRoutes.Request(method, exchange.getRequestURI(),
              lowerCaseHeaders(exchange), secure, body));
        }
        if (intercepted.isPresent()) {
          response = intercepted.get();
        } else if (isGet) {
          response = handler.get().get(exchange.getRequestURI());
        } else {
          response = post.get().post(exchange.getRequestURI(), new String(body, StandardCharsets.UTF_8));
        }
      } catch (RuntimeException e) {
        log.warn("{} failed", path, e);
        throw e;
      }
      response.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
      respond(exchange, response.status(), response.contentType(), response.body());
    }
  }

  private static Map<String, List<String>> lowerCaseHeaders(HttpExchange exchange) {
    Map<String, List<String>> out = new HashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> out.computeIfAbsent(k.toLowerCase(Locale.ROOT),
        x -> new ArrayList<>()).addAll(v));
    return out;
  }

  /** Writes a whole answer (no body for HEAD); the caller closes the exchange. */
  static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
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
