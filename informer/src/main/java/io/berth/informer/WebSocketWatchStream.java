package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.WebSocket;
import io.fabric8.kubernetes.client.http.WebSocketHandshakeException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;

/**
 * One watch over a WebSocket opened with a fabric8 client's HTTP client (its transport,
 * authentication and rate limiting), decoded by the consuming thread. The HTTP client's event loop
 * only queues each frame; {@link #next()} decodes it: an API server writes
 * {@code {"type":"ADDED","object":{...}}}, so one streaming parse of the frame reads the type and
 * binds the object straight to the watched class with a cached {@link ObjectReader} (optionally
 * skipping {@code metadata.managedFields}), where fabric8's own watch first reads the object into
 * a JSON tree (to find its kind) and then converts the tree, on an executor of its own. Frames of
 * another layout go through fabric8's {@code WatchEvent} decoding.
 *
 * <p>How a watch ends: the connection closing (the server's timeout, a close from either side) or
 * failing becomes CLOSED; an ERROR event becomes ERROR carrying a {@link KubernetesClientException}
 * with the server's status (410 for an expired resourceVersion), as does an undecodable frame. A
 * refused upgrade is thrown by {@link #open} with the HTTP status. Nothing is retried or
 * reconnected here: that is the {@link Reflector}'s job.
 *
 * <p>Thread safety: the frame queue is concurrent (the event loop produces, one thread consumes);
 * {@code socket} and {@code ended} are volatile; {@code terminalConsumed} is confined to the
 * consuming thread.
 */
final class WebSocketWatchStream<T extends HasMetadata> implements WatchStream<T>, WebSocket.Listener {

  private static final Logger log = LoggerFactory.getLogger(WebSocketWatchStream.class);

  private final Class<T> type;
  private final KubernetesSerialization json;
  // bind the event's object (the watched class) and an ERROR event's Status; immutable, shared
  private final ObjectReader objects;
  private final ObjectReader statuses;
  private final boolean skipManagedFields;
  private final String description;
  // frames (String) in arrival order, then at most one terminal WatchEvent
  private final LinkedBlockingQueue<Object> frames = new LinkedBlockingQueue<>();
  private volatile WebSocket socket;
  private volatile boolean ended;
  // confined to the consuming thread
  private boolean terminalConsumed;

  /**
   * @param skipManagedFields whether the objects' {@code metadata.managedFields} are skipped while
   *     decoding (the informer transform kube-scheduler and kube-controller-manager install)
   */
  WebSocketWatchStream(Class<T> type, ClientSerialization json, boolean skipManagedFields,
      String description) {
    this.type = type;
    this.json = json;
    this.objects = json.reader(type, skipManagedFields);
    this.statuses = json.reader(Status.class, false);
    this.skipManagedFields = skipManagedFields;
    this.description = description;
  }

  /**
   * Opens the watch at {@code uri} ({@code ws} or {@code http} scheme, query included) and waits
   * for the upgrade, at most {@code timeoutMillis}.
   *
   * @throws KubernetesClientException if the server refused the upgrade (its status code, e.g.
   *     410, in {@link KubernetesClientException#getCode()}) or could not be reached (the cause)
   */
  static <T extends HasMetadata> WebSocketWatchStream<T> open(HttpClient http, URI uri, Class<T> type,
      ClientSerialization json, boolean skipManagedFields, String description, long timeoutMillis) {
    WebSocketWatchStream<T> stream = new WebSocketWatchStream<>(type, json, skipManagedFields, description);
    WebSocket.Builder builder = http.newWebSocketBuilder();
    builder.header("Origin", uri.getScheme() + "://" + uri.getHost()
        + (uri.getPort() == -1 ? "" : ":" + uri.getPort()));
    builder.uri(uri).connectTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
    WebSocket socket;
    try {
      socket = builder.buildAsync(stream).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while opening the watch of " + description, e);
    } catch (ExecutionException | CompletionException e) {
      throw failure(e.getCause() == null ? e : e.getCause(), description);
    } catch (TimeoutException e) {
      throw new KubernetesClientException("timed out opening the watch of " + description, e);
    }
    stream.socket = socket;
    if (stream.ended) {
      socket.sendClose(1000, null);
    }
    return stream;
  }

  private static KubernetesClientException failure(Throwable t, String description) {
    if (t instanceof WebSocketHandshakeException h) {
      int code = h.getResponse().code();
      Status status = new StatusBuilder().withCode(code)
          .withMessage("Received " + code + " on websocket").build();
      return new KubernetesClientException("watch of " + description + " refused: HTTP " + code, t,
          code, status, null);
    }
    if (t instanceof KubernetesClientException e) {
      return e;
    }
    return new KubernetesClientException("failed to open the watch of " + description + ": " + t, t);
  }

  @Override
  public void onOpen(WebSocket webSocket) {
    webSocket.request();
  }

  @Override
  public void onMessage(WebSocket webSocket, String text) {
    frames.add(text);
    webSocket.request();
  }

  @Override
  public void onMessage(WebSocket webSocket, ByteBuffer bytes) {
    frames.add(StandardCharsets.UTF_8.decode(bytes).toString());
    webSocket.request();
  }

  @Override
  public void onClose(WebSocket webSocket, int code, String reason) {
    log.debug("{}: watch closed by the server ({} {})", description, code, reason);
    end(WatchEvent.closed());
  }

  @Override
  public void onError(WebSocket webSocket, Throwable error) {
    // as a server-side end: the reflector watches again from the last resourceVersion
    log.debug("{}: watch connection failed: {}", description, String.valueOf(error));
    end(WatchEvent.closed());
  }

  private void end(WatchEvent<T> terminal) {
    if (!ended) {
      ended = true;
      frames.add(terminal);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public WatchEvent<T> next() throws InterruptedException {
    while (true) {
      if (terminalConsumed) {
        return WatchEvent.closed();
      }
      Object frame = frames.take();
      WatchEvent<T> event = frame instanceof String text ? decode(text) : (WatchEvent<T>) frame;
      if (event == null) {
        continue; // an event type this stream does not report
      }
      if (event.type().isTerminal()) {
        terminalConsumed = true;
        if (!ended) {
          ended = true;
          closeSocket();
        }
      }
      return event;
    }
  }

  /** The frame as an event; null for a type to skip; a decoding failure is an ERROR event. */
  WatchEvent<T> decode(String frame) {
    try {
      try (JsonParser parser = objects.createParser(frame)) {
        if (parser.nextToken() == JsonToken.START_OBJECT && "type".equals(parser.nextName())) {
          String eventType = parser.nextStringValue();
          if (eventType != null && "object".equals(parser.nextName())) {
            parser.nextToken();
            return event(eventType, parser);
          }
        }
      }
      return generic(json.unmarshal(frame, io.fabric8.kubernetes.api.model.WatchEvent.class));
    } catch (RuntimeException e) {
      return WatchEvent.error(new KubernetesClientException(
          description + ": undecodable watch event: " + e.getMessage(), e));
    }
  }

  /** The event of {@code eventType} whose object starts at {@code parser}'s current token. */
  private WatchEvent<T> event(String eventType, JsonParser parser) {
    switch (eventType) {
      case "ADDED":
        return WatchEvent.of(WatchEvent.Type.ADDED, object(parser));
      case "MODIFIED":
        return WatchEvent.of(WatchEvent.Type.MODIFIED, object(parser));
      case "DELETED":
        return WatchEvent.of(WatchEvent.Type.DELETED, object(parser));
      case "BOOKMARK":
        return WatchEvent.bookmark(Cache.resourceVersion(object(parser)));
      case "ERROR":
        return WatchEvent.error(new KubernetesClientException(statuses.<Status>readValue(parser)));
      default:
        log.warn("{}: ignoring unexpected watch event type {}", description, eventType);
        return null;
    }
  }

  private T object(JsonParser parser) {
    T object = objects.readValue(parser);
    if (object == null) {
      throw new KubernetesClientException(description + ": watch event without an object");
    }
    return object;
  }

  /** A frame decoded by fabric8 (another field order): the object converted to the watched class. */
  private WatchEvent<T> generic(io.fabric8.kubernetes.api.model.WatchEvent event) {
    Object object = event.getObject();
    String eventType = event.getType() == null ? "" : event.getType();
    if ("ERROR".equals(eventType)) {
      Status status = object instanceof Status s ? s : json.convertValue(object, Status.class);
      return WatchEvent.error(new KubernetesClientException(status));
    }
    if (!"ADDED".equals(eventType) && !"MODIFIED".equals(eventType)
        && !"DELETED".equals(eventType) && !"BOOKMARK".equals(eventType)) {
      log.warn("{}: ignoring unexpected watch event type {}", description, eventType);
      return null;
    }
    T typed = type.isInstance(object) ? type.cast(object) : json.convertValue(object, type);
    if (skipManagedFields && typed.getMetadata() != null
        && typed.getMetadata().getManagedFields() != null
        && !typed.getMetadata().getManagedFields().isEmpty()) {
      typed.getMetadata().setManagedFields(new java.util.ArrayList<>());
    }
    return "BOOKMARK".equals(eventType) ? WatchEvent.bookmark(Cache.resourceVersion(typed))
        : WatchEvent.of(WatchEvent.Type.valueOf(eventType), typed);
  }

  @Override
  public boolean isOpen() {
    return !ended;
  }

  @Override
  public void close() {
    end(WatchEvent.closed());
    closeSocket();
  }

  private void closeSocket() {
    WebSocket current = socket;
    if (current != null) {
      current.sendClose(1000, null);
    }
  }
}
