package io.berth.embedded.server;

import io.berth.embedded.auth.UserInfo;
import io.berth.embedded.fault.FaultInjector;
import io.berth.embedded.fault.RequestLog;
import io.berth.embedded.fault.RequestRecord;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Routes every request the transport receives to the server's operations: discovery, CRUD on each resource type,
 * the status, scale, binding and eviction subresources, and watches (over a WebSocket upgrade here, or streamed
 * over chunked HTTP through {@link #openHttpWatch}), and the create-only review resources. Records each request in
 * the request log, then authenticates and authorizes it ({@link AccessControl}), then applies injected faults. Any
 * failure becomes a {@code metav1.Status} response.
 *
 * <p>Called on the transport's event-loop threads: it never blocks beyond the store lock, and latency faults are
 * served by delaying the response body, not by sleeping. Thread-safe: holds no mutable state of its own.
 */
public final class ApiDispatcher extends Dispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(ApiDispatcher.class);
  private static final byte[] OK = "ok".getBytes(StandardCharsets.UTF_8);

  private final ResourceOperations ops;
  private final WatchHub watches;
  private final CustomResourceTypes types;
  private final Discovery discovery;
  private final OpenApi openApi = new OpenApi();
  private final TablePrinter tables;
  private final ListPager pager;
  private final PodSubresources pods;
  private final ScaleSubresource scale;
  private final FaultInjector faults;
  private final RequestLog requestLog;
  private final AccessControl access;
  private final ReviewEndpoints reviews;
  private final EventsV1Api eventsV1;

  ApiDispatcher(ResourceOperations ops, WatchHub watches, CustomResourceTypes types, Discovery discovery, ListPager pager,
      FaultInjector faults, RequestLog requestLog, AccessControl access) {
    this.ops = ops;
    this.watches = watches;
    this.types = types;
    this.discovery = discovery;
    this.pager = pager;
    this.pods = new PodSubresources(ops);
    this.scale = new ScaleSubresource(ops);
    this.faults = faults;
    this.requestLog = requestLog;
    this.access = access;
    this.reviews = new ReviewEndpoints(access.tokens(), access.authorizer());
    this.tables = new TablePrinter(ops.clock());
    this.eventsV1 = new EventsV1Api(ops, pager, tables);
  }

  /** Serves a request that reached the fabric8 mock's transport (WebSocket upgrades). */
  @Override
  public MockResponse dispatch(RecordedRequest request) {
    return serve(RequestInfo.parse(request.getMethod(), request.getPath()), ApiRequest.of(request)).toMock();
  }

  /** Serves {@code request}, already parsed as {@code info}; never throws: failures become Status answers. */
  ApiResponse serve(RequestInfo info, ApiRequest request) {
    record(info);
    UserInfo user;
    try {
      user = access.admit(info, request.header("Authorization"));
    } catch (ApiException e) {
      return Responses.error(e);
    }
    Optional<Integer> failure = faults.takeFailure(info.verb(), info.resourcePath());
    if (failure.isPresent()) {
      return Responses.error(injected(failure.get()));
    }
    ApiResponse response;
    try {
      response = route(info, request, user);
    } catch (ApiException e) {
      response = Responses.error(e);
    } catch (RuntimeException e) {
      LOG.error("internal error serving {} {}", request.method(), request.uri(), e);
      response = Responses.error(ApiException.internal(e.toString()));
    }
    Duration delay = faults.latency(info.verb(), info.resourcePath());
    if (!delay.isZero() && response.webSocket() == null) {
      response = response.delayed(delay);
    }
    return response;
  }

  /**
   * Opens a watch streamed over chunked HTTP (the transport owns the response). Returns an error response to send
   * instead when the request is refused; otherwise the watch is open and {@code sink} receives its events.
   */
  Optional<ApiResponse> openHttpWatch(RequestInfo info, String accept, String authorization,
      Supplier<WatchSink> sink, java.util.function.Consumer<ServerWatch> opened) {
    record(info);
    try {
      access.admit(info, authorization);
    } catch (ApiException e) {
      return Optional.of(Responses.error(e));
    }
    Optional<Integer> failure = faults.takeFailure(info.verb(), info.resourcePath());
    if (failure.isPresent()) {
      return Optional.of(Responses.error(injected(failure.get())));
    }
    try {
      WatchHub.WatchRequest request = watchRequest(info, accept);
      opened.accept(watches.open(request, sink.get()));
      return Optional.empty();
    } catch (ApiException e) {
      return Optional.of(Responses.error(e));
    }
  }

  /**
   * A watch request checked as {@link #openHttpWatch} checks it (request log, authentication and authorization,
   * injected faults, the request's parameters): either the answer to send instead ({@code refusal}), or the watch
   * to open once the transport has a sink for it ({@code request}).
   */
  record WatchAdmission(ApiResponse refusal, WatchHub.WatchRequest request) {
  }

  /** Checks a watch the transport serves over a WebSocket it upgrades itself; see {@link WatchAdmission}. */
  WatchAdmission admitWatch(RequestInfo info, String accept, String authorization) {
    record(info);
    try {
      access.admit(info, authorization);
    } catch (ApiException e) {
      return new WatchAdmission(Responses.error(e), null);
    }
    Optional<Integer> failure = faults.takeFailure(info.verb(), info.resourcePath());
    if (failure.isPresent()) {
      return new WatchAdmission(Responses.error(injected(failure.get())), null);
    }
    try {
      WatchHub.WatchRequest request = watchRequest(info, accept);
      WatchHub.parseResourceVersion(request);
      return new WatchAdmission(null, request);
    } catch (ApiException e) {
      return new WatchAdmission(Responses.error(e), null);
    }
  }

  /** Opens an admitted watch ({@link #admitWatch}) on {@code sink}; the caller closes it when the client goes. */
  ServerWatch openWatch(WatchHub.WatchRequest request, WatchSink sink) {
    return watches.open(request, sink);
  }

  /** Whether a request is a watch that should be streamed over HTTP when not a WebSocket. */
  static boolean isWatch(RequestInfo info) {
    return info.method().equals("GET") && info.resourceRequest() && info.verb().equals("watch");
  }

  private void record(RequestInfo info) {
    requestLog.record(new RequestRecord(ops.clock().instant(), info.verb(), info.group(), info.resource(),
        info.subresource(), info.namespace(), info.name(), info.path(), info.query()));
  }

  private static ApiException injected(int code) {
    String reason = switch (code) {
      case 409 -> "Conflict";
      case 429 -> "TooManyRequests";
      case 500 -> "InternalError";
      case 503 -> "ServiceUnavailable";
      case 504 -> "Timeout";
      default -> "Unknown";
    };
    return new ApiException(code, reason, "injected fault: " + code);
  }

  private ApiResponse route(RequestInfo info, ApiRequest request, UserInfo user) {
    if (!info.resourceRequest()) {
      return nonResource(info);
    }
    Optional<ReviewEndpoints.ReviewResource> review = ReviewEndpoints.find(info);
    if (review.isPresent()) {
      return reviews.serve(review.get(), info, request.header("Content-Type"), body(request), user);
    }
    if (info.resource().equals("bindings") && info.group().isEmpty() && info.verb().equals("create")) {
      ObjectNode binding = Json.parseObject(body(request));
      String pod = Json.text(binding, "metadata", "name");
      if (pod == null) {
        throw ApiException.badRequest("a Binding needs metadata.name, the pod to bind");
      }
      pods.bind(info.namespace(), pod, binding);
      return Responses.success(201);
    }
    ResourceType type = types.find(info.group(), info.version(), info.resource())
        .orElseThrow(() -> new ApiException(404, "NotFound", "the server could not find the requested resource"));
    if (type.namespaced() && info.namespace().isEmpty() && !info.name().isEmpty()) {
      throw new ApiException(404, "NotFound", "the server could not find the requested resource");
    }
    return switch (info.subresource()) {
      case "" -> main(type, info, request);
      case "status" -> status(type, info, request);
      case "scale" -> scale(type, info, request);
      case "binding" -> {
        requirePods(type, info);
        pods.bind(info.namespace(), info.name(), Json.parseObject(body(request)));
        yield Responses.success(201);
      }
      case "eviction" -> {
        requirePods(type, info);
        pods.evict(info.namespace(), info.name(), Json.parseObject(body(request)), info);
        yield Responses.success(201);
      }
      default -> throw new ApiException(404, "NotFound", "the server could not find the requested resource");
    };
  }

  private static void requirePods(ResourceType type, RequestInfo info) {
    if (type != ResourceTypes.PODS || !info.verb().equals("create")) {
      throw ApiException.methodNotAllowed("the server does not allow this method on the requested resource");
    }
  }

  private ApiResponse nonResource(RequestInfo info) {
    String path = info.path();
    if (path.equals("/healthz") || path.equals("/readyz") || path.equals("/livez")) {
      return ApiResponse.of(200, "text/plain", OK);
    }
    Optional<byte[]> openApiDoc = openApi.document(path);
    if (openApiDoc.isPresent()) {
      return Responses.json(200, openApiDoc.get());
    }
    return discovery.document(path).map(doc -> Responses.json(200, doc))
        .orElseThrow(() -> new ApiException(404, "NotFound", "the server could not find the requested resource"));
  }

  private ApiResponse main(ResourceType type, RequestInfo info, ApiRequest request) {
    if (type == ResourceTypes.EVENTS_V1 && !info.verb().equals("watch")) {
      return eventsV1.serve(info, request);
    }
    return switch (info.verb()) {
      case "get" -> {
        StoredObject o = ops.get(type, info.namespace(), info.name());
        yield TablePrinter.wantsTable(request.header("Accept"))
            ? tableResponse(tables.single(type, o.tree(), info.query().get("includeObject"), true))
            : Responses.object(200, o);
      }
      case "list" -> list(type, info, request.header("Accept"));
      case "watch" -> webSocketWatch(type, info, request);
      case "create" -> {
        ObjectNode body = Json.parseObject(body(request));
        if (!info.name().isEmpty()) {
          throw ApiException.methodNotAllowed("POST to a named " + type.resource() + " is not supported");
        }
        yield Responses.object(201, ops.create(type, info.namespace(), body));
      }
      case "update" -> Responses.object(200,
          ops.update(type, info.namespace(), info.name(), Json.parseObject(body(request)), false));
      case "patch" -> Responses.object(200,
          ops.patch(type, info.namespace(), info.name(), contentType(request), body(request), false));
      case "delete" -> {
        DeleteOptions options = DeleteOptions.from(optionalBody(request), info);
        yield Responses.object(200, deleteOne(type, info.namespace(), info.name(), options).object());
      }
      case "deletecollection" -> deleteCollection(type, info, request);
      default -> throw ApiException.methodNotAllowed("verb " + info.verb() + " is not supported");
    };
  }

  private ApiResponse status(ResourceType type, RequestInfo info, ApiRequest request) {
    if (!type.hasStatus()) {
      throw new ApiException(404, "NotFound", "the server could not find the requested resource");
    }
    return switch (info.verb()) {
      case "get" -> Responses.object(200, ops.get(type, info.namespace(), info.name()));
      case "update" -> Responses.object(200,
          ops.update(type, info.namespace(), info.name(), Json.parseObject(body(request)), true));
      case "patch" -> Responses.object(200,
          ops.patch(type, info.namespace(), info.name(), contentType(request), body(request), true));
      default -> throw ApiException.methodNotAllowed("the status subresource supports get, update and patch");
    };
  }

  private ApiResponse scale(ResourceType type, RequestInfo info, ApiRequest request) {
    if (!type.hasScale()) {
      throw new ApiException(404, "NotFound", "the server could not find the requested resource");
    }
    return switch (info.verb()) {
      case "get" -> Responses.tree(200, scale.get(type, info.namespace(), info.name()));
      case "update" -> Responses.tree(200,
          scale.update(type, info.namespace(), info.name(), Json.parseObject(body(request))));
      case "patch" -> Responses.tree(200,
          scale.patch(type, info.namespace(), info.name(), contentType(request), body(request)));
      default -> throw ApiException.methodNotAllowed("the scale subresource supports get, update and patch");
    };
  }

  private Predicate<StoredObject> filter(ResourceType type, RequestInfo info) {
    Predicate<StoredObject> labels = info.param("labelSelector").filter(s -> !s.isBlank())
        .map(s -> ops.hooks().labelSelector(s)).orElse(o -> true);
    Predicate<StoredObject> fields = info.param("fieldSelector").filter(s -> !s.isBlank())
        .map(s -> ops.hooks().fieldSelector(type, s)).orElse(o -> true);
    return labels.and(fields);
  }

  static ApiResponse tableResponse(byte[] body) {
    return ApiResponse.of(200, TablePrinter.CONTENT_TYPE, body);
  }

  private ApiResponse list(ResourceType type, RequestInfo info, String accept) {
    long limit = info.param("limit").map(ApiDispatcher::parseLimit).orElse(0L);
    Optional<String> token = info.param("continue").filter(s -> !s.isEmpty());
    ListPager.Page page;
    if (token.isPresent()) {
      page = pager.next(type, token.get(), limit);
    } else {
      ObjectStore.Snapshot snapshot = ops.store().list(type, info.namespace(), filter(type, info));
      page = pager.first(type, snapshot, limit);
    }
    if (TablePrinter.wantsTable(accept)) {
      return tableResponse(tables.table(type, page.resourceVersion(), page.continueToken(), page.items(),
          info.query().get("includeObject")));
    }
    return Responses.json(200, Responses.listBytes(type, page.resourceVersion(), page.continueToken(),
        page.remaining(), page.items()));
  }

  private static long parseLimit(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("limit: Invalid value: \"" + s + "\": not an integer");
    }
  }

  /**
   * Deletes one object; deleting a CustomResourceDefinition for good also removes every object of the type it
   * defined, in the same store step (kube-apiserver's customresourcecleanup finalizer does it asynchronously).
   */
  private ResourceOperations.DeleteResult deleteOne(ResourceType type, String namespace, String name,
      DeleteOptions options) {
    if (!type.equals(ResourceTypes.CUSTOM_RESOURCE_DEFINITIONS)) {
      return ops.delete(type, namespace, name, options);
    }
    return ops.store().write(() -> {
      Optional<ResourceType> defined = types.byCrd(name);
      ResourceOperations.DeleteResult result = ops.delete(type, namespace, name, options);
      if (result.removed() && defined.isPresent()) {
        for (StoredObject o : ops.store().list(defined.get(), "", x -> true).items()) {
          ops.store().remove(defined.get(), o.namespace(), o.name());
        }
      }
      return result;
    });
  }

  private ApiResponse deleteCollection(ResourceType type, RequestInfo info, ApiRequest request) {
    DeleteOptions options = DeleteOptions.from(optionalBody(request), info);
    List<StoredObject> deleted = new ArrayList<>();
    for (StoredObject o : ops.store().list(type, info.namespace(), filter(type, info)).items()) {
      try {
        deleted.add(deleteOne(type, o.namespace(), o.name(), options).object());
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
    }
    return Responses.json(200, Responses.listBytes(type, ops.store().resourceVersion(), null, null, deleted));
  }

  private WatchHub.WatchRequest watchRequest(RequestInfo info, String accept) {
    ResourceType type = types.find(info.group(), info.version(), info.resource())
        .orElseThrow(() -> new ApiException(404, "NotFound", "the server could not find the requested resource"));
    Predicate<StoredObject> filter = filter(type, info);
    if (!info.name().isEmpty()) {
      String name = info.name();
      filter = filter.and(o -> o.name().equals(name));
    }
    Optional<Duration> timeout = info.param("timeoutSeconds").filter(s -> !s.isEmpty()).map(s -> {
      try {
        return Duration.ofSeconds(Long.parseLong(s));
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("timeoutSeconds: Invalid value: \"" + s + "\": not an integer");
      }
    });
    boolean bookmarks = "true".equals(info.query().get("allowWatchBookmarks"));
    java.util.function.Function<StoredObject, byte[]> render = WatchHub.JSON;
    if (TablePrinter.wantsTable(accept)) {
      String includeObject = info.query().get("includeObject");
      render = o -> tables.single(type, o.tree(), includeObject, true);
    }
    WatchHub.WatchRequest request = new WatchHub.WatchRequest(type, info.namespace(), filter,
        info.query().get("resourceVersion"), bookmarks, timeout, render);
    return type == ResourceTypes.EVENTS_V1 ? eventsV1.watch(request) : request;
  }

  private ApiResponse webSocketWatch(ResourceType type, RequestInfo info, ApiRequest request) {
    WatchHub.WatchRequest watchRequest = watchRequest(info, request.header("Accept"));
    String upgrade = request.header("Upgrade");
    if (upgrade == null || !upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
      // The transport streams plain HTTP watches itself; reaching here means it could not.
      throw ApiException.badRequest("watch requests must be streamed");
    }
    return ApiResponse.upgrade(new WebSocketListener() {
      private volatile ServerWatch watch;

      @Override
      public void onOpen(WebSocket webSocket, io.fabric8.mockwebserver.http.Response response) {
        watch = watches.open(watchRequest,
            new WebSocketSink(webSocket, io.vertx.core.Vertx.currentContext()));
      }

      @Override
      public void onClosing(WebSocket webSocket, int code, String reason) {
        closeWatch();
      }

      @Override
      public void onClosed(WebSocket webSocket, int code, String reason) {
        closeWatch();
      }

      @Override
      public void onFailure(WebSocket webSocket, Throwable t, io.fabric8.mockwebserver.http.Response response) {
        closeWatch();
      }

      private void closeWatch() {
        ServerWatch w = watch;
        if (w != null) {
          w.close();
        }
      }
    });
  }

  private static byte[] body(ApiRequest request) {
    return request.body();
  }

  static JsonNode optionalBody(ApiRequest request) {
    byte[] body = body(request);
    if (body.length == 0) {
      return null;
    }
    return Json.parse(body);
  }

  static String contentType(ApiRequest request) {
    String ct = request.header("Content-Type");
    if (ct == null) {
      throw ApiException.unsupportedMediaType("(none)");
    }
    int semi = ct.indexOf(';');
    return (semi < 0 ? ct : ct.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
