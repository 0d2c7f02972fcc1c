package io.berth.scheduler.debug;

import io.berth.component.DaemonInstance;
import io.berth.component.EndpointRoutes;
import io.berth.component.EndpointRoutes.Request;
import io.berth.component.EndpointRoutes.Response;
import io.berth.component.LeaseAnnotations;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sends {@code /debug/*} requests that reach a standby replica on to the leader, whose queue and
 * cache are the ones scheduling.
 *
 * <p>The leader says where it serves: this instance publishes the annotation {@value #ANNOTATION}
 * on the leader-election Lease ({@code {"holderIdentity": ..., "http": "http://HOST:PORT",
 * "https": "https://HOST:PORT"}}, HOST from {@code --debug-advertise-address}), which the Lease lock
 * writes with every renewal while this instance holds the Lease, so it costs no request beyond
 * leader election's own; a standby reads it with the Lease each retry period. A standby forwards a
 * request to the leader's endpoint of the same kind: a plain-port request to the leader's plain port,
 * a secure-port request (already authenticated and authorized here) to the leader's secure port with
 * the caller's own {@code Authorization} header, which the leader reviews again; the standby never
 * adds credentials of its own. The leader's answer comes back as it is, with header
 * {@value #LEADER_HEADER} naming the leader. The leader's certificate must be the one this instance
 * serves (replicas share one Secret); it is pinned, not checked against a host name, since the
 * address comes from the Lease. When there is no leader, it publishes no address of that kind, its
 * certificate differs, or it cannot be reached, the answer is 503 with the leader's identity.
 * {@code GET /debug/leader} is answered by each instance itself: who it is, whether it leads, who
 * does and where. A request already forwarded once ({@value #FORWARDED_HEADER}) is never forwarded
 * again.
 *
 * <p>Thread-safe: immutable after construction; the HTTP clients are thread-safe; called on the
 * endpoints' request threads.
 */
public final class LeaderForwarding implements EndpointRoutes.Interceptor {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderForwarding.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /** The Lease annotation holding the leader's debug endpoints. */
  public static final String ANNOTATION = "scheduler.berth.io/debug-endpoints";
  /** The response header naming the leader that answered a forwarded request. */
  public static final String LEADER_HEADER = "X-Berth-Leader";
  /** The request header a standby adds (its identity), so that a request is forwarded at most once. */
  public static final String FORWARDED_HEADER = "X-Berth-Forwarded-By";
  /** The path every instance answers itself. */
  public static final String LEADER_PATH = "/debug/leader";
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final DaemonInstance instance;
  private final LeaseAnnotations lease;
  private final BooleanSupplier leading;
  private final HttpClient plain;
  private final Optional<HttpClient> secure;

  /**
   * @param instance this process (identity, ports, serving certificate); its Lease annotations must
   *     be present (leader election on)
   * @param advertiseHost the host or IP address other replicas reach this one at
   * @param leading whether this instance schedules now
   */
  public LeaderForwarding(DaemonInstance instance, String advertiseHost, BooleanSupplier leading) {
    this.instance = Objects.requireNonNull(instance, "instance");
    this.lease = instance.lease().orElseThrow(
        () -> new IllegalArgumentException("forwarding needs leader election"));
    this.leading = Objects.requireNonNull(leading, "leading");
    this.plain = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
    this.secure = instance.servingCertificate().map(LeaderForwarding::pinnedClient);
    lease.publish(ANNOTATION, published(instance, advertiseHost));
  }

  /** Registers the interceptor on {@code /debug/} and {@code GET /debug/leader}. */
  public void register(EndpointRoutes routes) {
    routes.intercept("/debug/", this);
    routes.get(LEADER_PATH, uri -> new Response(200, DebugEndpoints.JSON_TYPE,
        JSON.writeValueAsString(leaderReport())));
  }

  @Override
  public Optional<Response> intercept(Request request) {
    if (request.uri().getRawPath().equals(LEADER_PATH) || leading.getAsBoolean()) {
      return Optional.empty();
    }
    String holder = lease.observed().map(LeaseAnnotations.Observed::holderIdentity).orElse("");
    if (holder.isEmpty()) {
      return Optional.of(unavailable(holder, "no scheduler instance holds the Lease now"));
    }
    if (holder.equals(instance.identity())) {
      return Optional.empty(); // just acquired, not scheduling yet: the handlers say so
    }
    Optional<String> by = request.header(FORWARDED_HEADER);
    if (by.isPresent()) {
      return Optional.of(unavailable(holder, "forwarded by " + by.get()
          + " to this instance, which does not lead either"));
    }
    Optional<ObjectNode> endpoints = leaderEndpoints(holder);
    if (endpoints.isEmpty()) {
      return Optional.of(unavailable(holder, "the leader publishes no debug address (Lease annotation "
          + ANNOTATION + ")"));
    }
    String kind = request.secure() ? "https" : "http";
    String base = endpoints.get().path(kind).asString("");
    if (base.isEmpty()) {
      return Optional.of(unavailable(holder, "the leader serves no " + (request.secure()
          ? "secure port (--secure-port)" : "plain port (--port)") + " to forward this request to"));
    }
    return Optional.of(forward(request, holder, base));
  }

  private Response forward(Request request, String holder, String base) {
    String target = base + request.uri().getRawPath()
        + (request.uri().getRawQuery() == null ? "" : "?" + request.uri().getRawQuery());
    HttpRequest.Builder out = HttpRequest.newBuilder(URI.create(target)).timeout(REQUEST_TIMEOUT)
        .method(request.method(), request.method().equals("POST")
            ? HttpRequest.BodyPublishers.ofByteArray(request.body())
            : HttpRequest.BodyPublishers.noBody())
        .header(FORWARDED_HEADER, instance.identity());
    request.header("Content-Type").ifPresent(v -> out.header("Content-Type", v));
    request.header("Accept").ifPresent(v -> out.header("Accept", v));
    if (request.secure()) {
      // the caller's own credentials, reviewed here and again by the leader; never ours
      request.header("Authorization").ifPresent(v -> out.header("Authorization", v));
    }
    HttpClient client = request.secure() ? secure.orElseThrow() : plain;
    try {
      HttpResponse<String> answer = client.send(out.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(answer.statusCode(), answer.headers().firstValue("Content-Type")
          .orElse(EndpointRoutes.TEXT), answer.body(), Map.of(LEADER_HEADER, holder));
    } catch (HttpTimeoutException e) {
      return unavailable(holder, "the leader at " + base + " did not answer within "
          + REQUEST_TIMEOUT.toSeconds() + " s");
    } catch (IOException e) {
      LOG.debug("forwarding {} to the leader {} at {} failed", request.uri().getRawPath(), holder, base, e);
      return unavailable(holder, "cannot reach the leader at " + base + ": " + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unavailable(holder, "interrupted while forwarding to the leader at " + base);
    }
  }

  /** The endpoints the Lease's annotation names, if it was written by {@code holder}. */
  private Optional<ObjectNode> leaderEndpoints(String holder) {
    String value = lease.observed().map(o -> o.annotations().get(ANNOTATION)).orElse(null);
    if (value == null) {
      return Optional.empty();
    }
    try {
      JsonNode n = JSON.readTree(value);
      if (n instanceof ObjectNode o && holder.equals(o.path("holderIdentity").asString(""))) {
        return Optional.of(o);
      }
    } catch (JacksonException e) {
      LOG.debug("unreadable Lease annotation {}: {}", ANNOTATION, value);
    }
    return Optional.empty();
  }

  private ObjectNode leaderReport() {
    String holder = lease.observed().map(LeaseAnnotations.Observed::holderIdentity).orElse("");
    ObjectNode n = F.objectNode();
    n.put("identity", instance.identity());
    n.put("leading", leading.getAsBoolean());
    if (holder.isEmpty()) {
      n.putNull("leader");
    } else {
      n.put("leader", holder);
    }
    leaderEndpoints(holder).ifPresent(e -> {
      ObjectNode endpoints = n.putObject("leaderEndpoints");
      if (e.has("http")) {
        endpoints.put("http", e.path("http").asString());
      }
      if (e.has("https")) {
        endpoints.put("https", e.path("https").asString());
      }
    });
    return n;
  }

  private Response unavailable(String holder, String why) {
    ObjectNode n = F.objectNode();
    n.put("error", "this scheduler instance is not the leader and cannot forward: " + why);
    if (!holder.isEmpty()) {
      n.put("leader", holder);
    }
    n.put("identity", instance.identity());
    return new Response(503, DebugEndpoints.JSON_TYPE, JSON.writeValueAsString(n),
        holder.isEmpty() ? Map.of() : Map.of(LEADER_HEADER, holder));
  }

  private static String published(DaemonInstance instance, String host) {
    String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    ObjectNode n = F.objectNode();
    n.put("holderIdentity", instance.identity());
    instance.plainPort().ifPresent(p -> n.put("http", "http://" + h + ":" + p));
    instance.securePort().ifPresent(p -> n.put("https", "https://" + h + ":" + p));
    return JSON.writeValueAsString(n);
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  private static HttpClient pinnedClient(X509Certificate own) {
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new javax.net.ssl.TrustManager[] {new PinnedCertificate(own)}, null);
      return HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).sslContext(tls).build();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS to forward /debug to the leader", e);
    }
  }
}
