package io.berth.component;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The GET paths a daemon serves, shared by the plain ({@code --port}) and the secure ({@code --secure-port})
 * {@link DaemonEndpoint}, so that both answer the same content. {@link #forDaemon} registers the standard paths:
 * {@code /healthz} and {@code /livez} (200 {@code ok} while the process serves), {@code /readyz} ({@code ?exclude=NAME} leaves out a named condition of {@link ReadinessCheck}; 200 {@code ok}
 * when the {@link ReadinessCheck} passes, 503 with one reason per line otherwise) and {@code /metrics} (the
 * Prometheus text exposition). A component registers more with {@link #get(String, Handler)}, for instance the
 * scheduler's {@code /debug/snapshot}; paths are matched exactly, then by the longest prefix registered with
 * {@link #getPrefix(String, Handler)} (such as {@code /debug/explain/}), HEAD is answered like GET without a
 * body, POST goes to the handlers registered with {@link #post(String, PostHandler)} (a body of at most
 * {@link #MAX_POST_BODY} bytes), other methods are 405, unknown paths 404. On the secure endpoint every path
 * outside {@code --authorization-always-allow-paths} requires an authorized bearer token (the verb of the
 * SubjectAccessReview being the lowercase method, {@code post} for POST, as upstream's non-resource requests).
 * An {@link Interceptor} registered for a prefix sees each request there first (after authorization) and may
 * answer it in the handler's place.
 *
 * <p>Thread-safe: the table is a concurrent map, so paths may be registered while the endpoints already serve
 * (a registration is visible to the requests that start after it); handlers are called from the endpoints'
 * request threads, concurrently, and must be thread-safe and quick.
 */
public final class EndpointRoutes {

  /** The Content-Type of plain text answers. */
  public static final String TEXT = "text/plain; charset=utf-8";
  /** The Content-Type of {@code /metrics}: Prometheus text format 0.0.4. */
  public static final String METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** The largest POST body an endpoint reads; a larger one is 413. */
  public static final int MAX_POST_BODY = 4 * 1024 * 1024;

  /** The paths every daemon serves. */
  public static final List<String> DAEMON_PATHS = List.of("/healthz", "/livez", "/readyz", "/metrics");

  /**
   * What a handler answers.
   *
   * @param status the HTTP status
   * @param contentType the Content-Type header
   * @param body the body, written as UTF-8 (omitted for HEAD)
   * @param headers further response headers (unmodifiable)
   */
  public record Response(int status, String contentType, String body, Map<String, String> headers) {
    public Response {
      Objects.requireNonNull(contentType, "contentType");
      Objects.requireNonNull(body, "body");
      headers = Map.copyOf(headers);
    }

    /** An answer without further headers. */
    public Response(int status, String contentType, String body) {
      this(status, contentType, body, Map.of());
    }

    /** A plain text answer. */
    public static Response text(int status, String body) {
      return new Response(status, TEXT, body);
    }
  }

  /** Answers a GET (or HEAD) of one path; called concurrently from request threads. */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param uri the request URI as sent (path and query)
     * @return the answer
     */
    Response get(URI uri);
  }

  /** Answers a POST of one path; called concurrently from request threads. */
  @FunctionalInterface
  public interface PostHandler {
    /**
     * @param uri the request URI as sent (path and query)
     * @param body the request body, decoded as UTF-8
     * @return the answer
     */
    Response post(URI uri, String body);
  }

  /**
   * A request as an {@link Interceptor} sees it, after the secure endpoint's authentication and authorization.
   *
   * @param method GET, HEAD or POST
   * @param uri the request URI as sent (path and query)
   * @param headers the request headers, names in lower case (unmodifiable)
   * @param secure whether it came to the secure endpoint (so its {@code Authorization} was reviewed)
   * @param body the body of a POST (empty otherwise)
   */
  public record Request(String method, URI uri, Map<String, List<String>> headers, boolean secure, byte[] body) {
    public Request {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(uri, "uri");
      headers = Map.copyOf(headers);
      Objects.requireNonNull(body, "body");
    }

    /** The first value of header {@code name} (any case), if sent. */
    public Optional<String> header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
  }

  /**
   * Sees every request of the paths under its prefix before their handler does, and may answer it instead
   * (the scheduler's standby forwards {@code /debug/*} to the leader this way); called concurrently.
   */
  @FunctionalInterface
  public interface Interceptor {
    /** The answer to send instead of the handler's, or empty to let the handler answer. */
    Optional<Response> intercept(Request request);
  }

  // concurrent maps: registrations and request threads need no further locking
  private final ConcurrentMap<String, Handler> handlers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Handler> prefixHandlers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, PostHandler> postHandlers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Interceptor> interceptors = new ConcurrentHashMap<>();

  /** An empty table. */
  public EndpointRoutes() {
  }

  /** A table with the standard daemon paths ({@link #DAEMON_PATHS}). */
  public static EndpointRoutes forDaemon(PrometheusMeterRegistry registry, ReadinessCheck readiness) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(readiness, "readiness");
    EndpointRoutes routes = new EndpointRoutes();
    Handler alive = uri -> Response.text(200, "ok");
    routes.get("/healthz", alive);
    routes.get("/livez", alive);
    routes.get("/readyz", uri -> {
      List<String> reasons = readiness.unreadyReasons(excludedChecks(uri));
      return reasons.isEmpty() ? Response.text(200, "ok") : Response.text(503, String.join("\n", reasons) + "\n");
    });
    routes.get("/metrics", uri -> new Response(200, METRICS_CONTENT_TYPE, registry.scrape()));
    return routes;
  }

  /**
   * The checks {@code ?exclude=a&exclude=b,c} names, as upstream's healthz reads them (repeated, or comma-separated).
   */
  static Set<String> excludedChecks(URI uri) {
    String query = uri.getRawQuery();
    if (query == null || query.isEmpty()) {
      return Set.of();
    }
    Set<String> excluded = new HashSet<>();
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals("exclude")) {
        for (String name : URLDecoder.decode(pair.substring(eq + 1),
            StandardCharsets.UTF_8).split(",")) {
          if (!name.isBlank()) {
            excluded.add(name.strip());
          }
        }
      }
    }
    return excluded;
  }

  /**
   * Serves GET and HEAD of {@code path} with {@code handler} on every endpoint using this table.
   *
   * @param path an absolute path such as {@code /debug/explain}, matched exactly
   * @return this
   * @throws IllegalArgumentException if the path does not start with {@code /}
   * @throws IllegalStateException if the path is already registered
   */
  public EndpointRoutes get(String path, Handler handler) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(handler, "handler");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("a path starts with /, got " + path);
    }
    if (handlers.putIfAbsent(path, handler) != null) {
      throw new IllegalStateException(path + " is already registered");
    }
    return this;
  }

  /**
   * Serves GET and HEAD of every path starting with {@code prefix} (that no exact path claims) with
   * {@code handler}; the longest matching prefix wins.
   *
   * @param prefix an absolute path prefix such as {@code /debug/explain/}
   * @return this
   * @throws IllegalArgumentException if the prefix does not start with {@code /}
   * @throws IllegalStateException if the prefix is already registered
   */
  public EndpointRoutes getPrefix(String prefix, Handler handler) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(handler, "handler");
    if (!prefix.startsWith("/")) {
      throw new IllegalArgumentException("a path starts with /, got " + prefix);
    }
    if (prefixHandlers.putIfAbsent(prefix, handler) != null) {
      throw new IllegalStateException(prefix + "* is already registered");
    }
    return this;
  }

  /**
   * Serves POST of {@code path} with {@code handler}.
   *
   * @return this
   * @throws IllegalArgumentException if the path does not start with {@code /}
   * @throws IllegalStateException if the path already has a POST handler
   */
  public EndpointRoutes post(String path, PostHandler handler) {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(handler, "handler");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("a path starts with /, got " + path);
    }
    if (postHandlers.putIfAbsent(path, handler) != null) {
      throw new IllegalStateException("POST " + path + " is already registered");
    }
    return this;
  }

  /**
   * Lets {@code interceptor} see (and perhaps answer) every GET, HEAD and POST of a path starting with
   * {@code prefix} that has a handler; the longest matching prefix wins.
   *
   * @return this
   * @throws IllegalStateException if the prefix already has an interceptor
   */
  public EndpointRoutes intercept(String prefix, Interceptor interceptor) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(interceptor, "interceptor");
    if (interceptors.putIfAbsent(prefix, interceptor) != null) {
      throw new IllegalStateException(prefix + "* already has an interceptor");
    }
    return this;
  }

  /** The interceptor of {@code path}: the longest registered prefix's, if any. */
  public Optional<Interceptor> interceptor(String path) {
    String best = null;
    for (String prefix : interceptors.keySet()) {
      if (path.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
        best = prefix;
      }
    }
    return best == null ? Optional.empty() : Optional.ofNullable(interceptors.get(best));
  }

  /** The GET handler of {@code path}: the exact one, else the longest registered prefix's, if any. */
  public Optional<Handler> handler(String path) {
    Handler exact = handlers.get(path);
    if (exact != null) {
      return Optional.of(exact);
    }
    String best = null;
    for (String prefix : prefixHandlers.keySet()) {
      if (path.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
        best = prefix;
      }
    }
    return best == null ? Optional.empty() : Optional.ofNullable(prefixHandlers.get(best));
  }

  /** The POST handler of {@code path}, if registered. */
  public Optional<PostHandler> postHandler(String path) {
    return Optional.ofNullable(postHandlers.get(path));
  }

  /** The registered paths, sorted; prefixes end in {@code *}. */
  public Set<String> paths() {
    Set<String> out = new TreeSet<>(handlers.keySet());
    prefixHandlers.keySet().forEach(p -> out.add(p + "*"));
    out.addAll(postHandlers.keySet());
    return out;
  }
}
