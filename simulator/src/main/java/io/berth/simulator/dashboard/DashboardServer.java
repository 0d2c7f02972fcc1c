package io.berth.simulator.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.berth.simulator.RunningCluster;
import io.fabric8.kubernetes.api.model.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The simulator's web dashboard on the JDK {@link HttpServer}, bound to the loopback address only (it has no
 * authentication, like kube-scheduler-simulator's): the page ({@code /}, {@code /app.js}, {@code /app.css}, from
 * this package's resources), the JSON API ({@code GET /api/cluster}, {@code /api/queue},
 * {@code /api/pods/{namespace}/{name}/explain}, with {@code ?format=text} the scheduler's table for a terminal,
 * {@code /api/events?after=N}) and the live event stream as
 * server-sent events ({@code GET /api/events/stream}, resuming after {@code Last-Event-ID}). Everything is read in
 * process from the running cluster's informers and scheduler. Thread-safe: requests run on a pool of daemon
 * threads, each stream holding one while its client listens; {@link #close} stops them.
 */
public final class DashboardServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final Pattern EXPLAIN = Pattern.compile("^/api/pods/([^/]+)/([^/]+)/explain$");
  private static final Map<String, String> STATIC = Map.of(
      "/", "index.html", "/index.html", "index.html", "/app.js", "app.js", "/app.css", "app.css");
  /** How long a stream waits for an event before it sends a keep-alive comment. */
  private static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
  /** Events a poll or one stream write returns at most. */
  private static final int BATCH = 200;

  private final HttpServer server;
  private final ExecutorService pool;
  private final DashboardData data;
  private final EventBuffer events;
  private volatile boolean closing;

  private DashboardServer(HttpServer server, ExecutorService pool, DashboardData data, EventBuffer events) {
    this.server = server;
    this.pool = pool;
    this.data = data;
    this.events = events;
  }

  /**
   * Serves the dashboard of {@code run} on {@code port} of the loopback address (0 picks a free port), feeding
   * {@code events} from the cluster's Events as well.
   *
   * @throws IOException when the port cannot be bound
   */
  public static DashboardServer start(int port, RunningCluster run, RunStatus status, EventBuffer events)
      throws IOException {
    run.informers().informerFor(Event.class).addEventHandler(new KubernetesEventFeed(events, true));
    DashboardData data = new DashboardData(run, status);
    run.informers().start();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "dashboard-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    DashboardServer dashboard = new DashboardServer(server, pool, data, events);
    server.createContext("/", dashboard::handle);
    server.setExecutor(pool);
    server.start();
    return dashboard;
  }

  /** The port served. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://localhost:PORT}. */
  public String url() {
    return "http://localhost:" + port();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
        return;
      }
      URI uri = exchange.getRequestURI();
      String path = uri.getRawPath();
      if (STATIC.containsKey(path)) {
        resource(exchange, STATIC.get(path));
      } else if (path.equals("/api/cluster")) {
        json(exchange, 200, data.cluster());
      } else if (path.equals("/api/queue")) {
        json(exchange, 200, data.queue());
      } else if (path.equals("/api/events")) {
        json(exchange, 200, Map.of("last", events.lastSeq(), "events", events.after(after(uri, exchange), BATCH)));
      } else if (path.equals("/api/events/stream")) {
        stream(exchange);
      } else {
        Matcher m = EXPLAIN.matcher(path);
        if (m.matches()) {
          String ns = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
          String name = URLDecoder.decode(m.group(2), StandardCharsets.UTF_8);
          Optional<Map<String, Object>> explained = data.explain(ns, name);
          if (explained.isPresent() && "format=text".equals(uri.getRawQuery())) {
            send(exchange, 200, "text/plain; charset=utf-8", data.explainText(ns, name).orElse(""));
          } else if (explained.isPresent()) {
            json(exchange, 200, explained.get());
          } else {
            json(exchange, 404, Map.of("error", "pods \"" + name + "\" not found in namespace \"" + ns + "\""));
          }
        } else {
          json(exchange, 404, Map.of("error", "no such path: " + path));
        }
      }
    } catch (IOException e) {
      // the browser went away
      LOG.debug("dashboard request {} ended: {}", exchange.getRequestURI(), e.toString());
    } catch (RuntimeException e) {
      LOG.warn("dashboard request {} failed", exchange.getRequestURI(), e);
      try {
        json(exchange, 500, Map.of("error", e.toString()));
      } catch (IOException | RuntimeException ignored) {
        // headers may be out already
      }
    }
  }

  private static long after(URI uri, HttpExchange exchange) {
    String query = uri.getRawQuery();
    if (query != null) {
      for (String part : query.split("&")) {
        if (part.startsWith("after=")) {
          try {
            return Long.parseLong(part.substring(6));
          } catch (NumberFormatException e) {
            return 0;
          }
        }
      }
    }
    String last = exchange.getRequestHeaders().getFirst("Last-Event-ID");
    if (last != null) {
      try {
        return Long.parseLong(last.trim());
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    return 0;
  }

  /** Server-sent events: one {@code event: k8s} message per entry, its number as the id, until the client leaves. */
  private void stream(HttpExchange exchange) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-cache");
    exchange.sendResponseHeaders(200, 0);
    long last = after(exchange.getRequestURI(), exchange);
    OutputStream out = exchange.getResponseBody();
    out.write("retry: 2000\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
    try {
      while (!closing) {
        List<EventBuffer.Entry> batch = events.awaitAfter(last, BATCH, KEEP_ALIVE);
        StringBuilder text = new StringBuilder();
        if (batch.isEmpty()) {
          text.append(": keep-alive\n\n");
        }
        for (EventBuffer.Entry e : batch) {
          text.append("id: ").append(e.seq()).append("\nevent: k8s\ndata: ").append(JSON.writeValueAsString(e))
              .append("\n\n");
          last = e.seq();
        }
        out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void resource(HttpExchange exchange, String name) throws IOException {
    try (InputStream in = DashboardServer.class.getResourceAsStream(name)) {
      if (in == null) {
        send(exchange, 404, "text/plain; charset=utf-8", "missing resource " + name + "\n");
        return;
      }
      String type = name.endsWith(".html") ? "text/html; charset=utf-8"
          : name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
      byte[] body = in.readAllBytes();
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.getResponseHeaders().set("Cache-Control", "no-cache");
      write(exchange, 200, body);
    }
  }

  private static void json(HttpExchange exchange, int status, Object value) throws IOException {
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    send(exchange, status, "application/json", JSON.writeValueAsString(value));
  }

  private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    write(exchange, status, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void write(HttpExchange exchange, int status, byte[] body) throws IOException {
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      exchange.getResponseBody().write(body);
    }
  }

  @Override
  public void close() {
    closing = true;
    server.stop(0);
    pool.shutdownNow();
  }
}
