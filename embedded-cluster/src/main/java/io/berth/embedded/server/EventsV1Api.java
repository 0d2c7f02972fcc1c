package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves {@code events.k8s.io/v1} Events as kube-apiserver does: as a second face of the one set of stored Events,
 * the core/v1 objects of {@link ResourceTypes#EVENTS}. An Event written through either API is read, listed,
 * watched, patched and deleted through both, at the same resourceVersions; requests here are converted on the way
 * in and answers on the way out ({@link EventConversion}), and creates and updates get events.k8s.io/v1's strict
 * validation ({@link EventValidation}). Selectors and patches apply to the events.k8s.io/v1 form, as upstream's
 * do. Nothing is ever stored as {@link ResourceTypes#EVENTS_V1}.
 *
 * <p>Called by {@link ApiDispatcher} on the transport's threads. Thread-safe: holds no mutable state; every write
 * is one {@link ResourceOperations} step on the core/v1 object (a patch is applied to the current version and
 * stored only if that version is still current, and applied again when it is not).
 */
final class EventsV1Api {

  private static final ResourceType V1 = ResourceTypes.EVENTS_V1;
  private static final ResourceType CORE = ResourceTypes.EVENTS;
  /** How often a patch is applied again after a concurrent write moved the object on. */
  private static final int PATCH_ATTEMPTS = 8;

  private final ResourceOperations ops;
  private final ListPager pager;
  private final TablePrinter tables;

  EventsV1Api(ResourceOperations ops, ListPager pager, TablePrinter tables) {
    this.ops = ops;
    this.pager = pager;
    this.tables = tables;
  }

  /** Serves a request on the main resource other than a watch ({@link #watch} serves those). */
  ApiResponse serve(RequestInfo info, ApiRequest request) {
    String ns = info.namespace();
    return switch (info.verb()) {
      case "get" -> {
        StoredObject o = get(ns, info.name());
        yield TablePrinter.wantsTable(request.header("Accept"))
            ? ApiDispatcher.tableResponse(tables.single(V1, o.tree(), info.query().get("includeObject"), true))
            : Responses.object(200, o);
      }
      case "list" -> list(info, request.header("Accept"));
      case "create" -> {
        if (!info.name().isEmpty()) {
          throw ApiException.methodNotAllowed("POST to a named " + V1.resource() + " is not supported");
        }
        yield Responses.object(201, create(ns, Json.parseObject(request.body())));
      }
      case "update" -> Responses.object(200, update(ns, info.name(), Json.parseObject(request.body())));
      case "patch" -> Responses.object(200,
          patch(ns, info.name(), ApiDispatcher.contentType(request), request.body()));
      case "delete" -> Responses.object(200,
          delete(ns, info.name(), DeleteOptions.from(ApiDispatcher.optionalBody(request), info)));
      case "deletecollection" -> {
        List<StoredObject> deleted = deleteCollection(ns, filter(info),
            DeleteOptions.from(ApiDispatcher.optionalBody(request), info));
        yield Responses.json(200, Responses.listBytes(V1, ops.store().resourceVersion(), null, null, deleted));
      }
      default -> throw ApiException.methodNotAllowed("verb " + info.verb() + " is not supported");
    };
  }

  private ApiResponse list(RequestInfo info, String accept) {
    long limit = info.param("limit").map(EventsV1Api::parseLimit).orElse(0L);
    java.util.Optional<String> token = info.param("continue").filter(s -> !s.isEmpty());
    ListPager.Page page = token.isPresent() ? pager.next(V1, token.get(), limit)
        : pager.first(V1, list(info.namespace(), filter(info)), limit);
    if (TablePrinter.wantsTable(accept)) {
      return ApiDispatcher.tableResponse(tables.table(V1, page.resourceVersion(), page.continueToken(),
          page.items(), info.query().get("includeObject")));
    }
    return Responses.json(200, Responses.listBytes(V1, page.resourceVersion(), page.continueToken(),
        page.remaining(), page.items()));
  }

  private static long parseLimit(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("limit: Invalid value: \"" + s + "\": not an integer");
    }
  }

  /** The request's label and field selectors, on the events.k8s.io/v1 form (its field labels). */
  private Predicate<StoredObject> filter(RequestInfo info) {
    Predicate<StoredObject> labels = info.param("labelSelector").filter(s -> !s.isBlank())
        .map(s -> ops.hooks().labelSelector(s)).orElse(o -> true);
    Predicate<StoredObject> fields = info.param("fieldSelector").filter(s -> !s.isBlank())
        .map(s -> ops.hooks().fieldSelector(V1, s)).orElse(o -> true);
    return labels.and(fields);
  }

  /** The events.k8s.io/v1 version of a stored Event (same resourceVersion). */
  static StoredObject view(StoredObject core) {
    return new StoredObject(V1, EventConversion.toV1(core.tree()), core.resourceVersion());
  }

  StoredObject get(String namespace, String name) {
    return view(current(namespace, name));
  }

  /** The Events of {@code namespace} (empty: all) whose events.k8s.io/v1 form passes {@code filter}. */
  ObjectStore.Snapshot list(String namespace, Predicate<StoredObject> filter) {
    ObjectStore.Snapshot all = ops.store().list(CORE, namespace, o -> true);
    List<StoredObject> out = new ArrayList<>();
    for (StoredObject o : all.items()) {
      StoredObject v = view(o);
      if (filter.test(v)) {
        out.add(v);
      }
    }
    return new ObjectStore.Snapshot(all.resourceVersion(), out);
  }

  StoredObject create(String namespace, ObjectNode body) {
    checkTypeMeta(body);
    ObjectNode core = EventConversion.toCore(body);
    ObjectNode meta = Json.metadata(core);
    String bodyNs = Json.text(meta, "namespace");
    if ((bodyNs == null || bodyNs.isEmpty()) && namespace != null && !namespace.isEmpty()) {
      meta.put("namespace", namespace);
    }
    EventValidation.validateV1Create(core);
    return view(renamed(() -> ops.create(CORE, namespace, core)));
  }

  StoredObject update(String namespace, String name, ObjectNode body) {
    checkTypeMeta(body);
    ObjectNode core = EventConversion.toCore(body);
    ObjectNode meta = Json.metadata(core);
    String bodyNs = Json.text(meta, "namespace");
    if (bodyNs == null || bodyNs.isEmpty()) {
      meta.put("namespace", namespace);
    }
    java.util.Optional<StoredObject> current = ops.store().get(CORE, namespace, name);
    if (current.isPresent()) {
      EventValidation.validateV1Update(current.get().tree(), core);
    } else {
      // a PUT of a missing Event creates it (allowCreateOnUpdate), so it is checked as a create
      meta.put("name", name);
      EventValidation.validateV1Create(core);
    }
    return view(renamed(() -> ops.update(CORE, namespace, name, core, false)));
  }

  StoredObject patch(String namespace, String name, String contentType, byte[] patch) {
    for (int attempt = 1; ; attempt++) {
      java.util.Optional<StoredObject> seen = ops.store().get(CORE, namespace, name);
      if (seen.isEmpty()) {
        if (contentType != null && contentType.startsWith("application/apply-patch")) {
          ObjectNode created = ops.hooks().applyPatch(V1, contentType, Json.object(), patch);
          Json.metadata(created).put("name", name);
          return create(namespace, created);
        }
        throw ApiException.notFound(V1, name);
      }
      StoredObject current = seen.get();
      String currentRv = Long.toString(current.resourceVersion());
      ObjectNode patched = ops.hooks().applyPatch(V1, contentType, EventConversion.toV1(current.tree()), patch);
      String patchedName = Json.text(patched, "metadata", "name");
      if (patchedName != null && !patchedName.equals(name)) {
        throw ApiException.invalid(V1, name, "metadata.name: Invalid value: \"" + patchedName
            + "\": field is immutable");
      }
      ObjectNode meta = Json.metadata(patched);
      meta.put("name", name);
      meta.put("namespace", namespace);
      String rv = Json.text(meta, "resourceVersion");
      // the patch is applied to this version: it is stored only if no other write came in between
      boolean unpinned = rv == null || rv.isEmpty() || rv.equals(currentRv);
      meta.put("resourceVersion", unpinned ? currentRv : rv);
      checkTypeMeta(patched);
      ObjectNode core = EventConversion.toCore(patched);
      EventValidation.validateV1Update(current.tree(), core);
      try {
        return view(renamed(() -> ops.update(CORE, namespace, name, core, false)));
      } catch (ApiException e) {
        if (!(unpinned && e.code() == 409 && e.reason().equals("Conflict") && attempt < PATCH_ATTEMPTS)) {
          throw e;
        }
      }
    }
  }

  StoredObject delete(String namespace, String name, DeleteOptions options) {
    current(namespace, name);
    return view(renamed(() -> ops.delete(CORE, namespace, name, options).object()));
  }

  /** Deletes every Event of {@code namespace} whose events.k8s.io/v1 form passes {@code filter}; what went. */
  List<StoredObject> deleteCollection(String namespace, Predicate<StoredObject> filter, DeleteOptions options) {
    List<StoredObject> deleted = new ArrayList<>();
    for (StoredObject o : list(namespace, filter).items()) {
      try {
        deleted.add(view(ops.delete(CORE, o.namespace(), o.name(), options).object()));
      } catch (ApiException e) {
        if (e.code() != 404) {
          throw e;
        }
      }
    }
    return deleted;
  }

  /**
   * A watch of the stored Events that selects with {@code filter} and renders with {@code render}, both given the
   * events.k8s.io/v1 form; converts each version once for both.
   */
  WatchHub.WatchRequest watch(WatchHub.WatchRequest asked) {
    LastView views = new LastView();
    Predicate<StoredObject> filter = asked.filter();
    Function<StoredObject, byte[]> render = asked.render();
    return new WatchHub.WatchRequest(CORE, asked.namespace(), o -> filter.test(views.of(o)),
        asked.resourceVersion(), asked.allowBookmarks(), asked.timeout(), o -> render.apply(views.of(o)));
  }

  /**
   * The view of the version last converted: a watch tests and renders the same version right after another.
   * The one entry is an immutable pair behind a volatile field, so a racing caller sees a whole pair.
   */
  private static final class LastView {
    private record Pair(StoredObject core, StoredObject view) {
    }

    private volatile Pair last;

    StoredObject of(StoredObject core) {
      Pair p = last;
      if (p != null && p.core() == core) {
        return p.view();
      }
      StoredObject v = view(core);
      last = new Pair(core, v);
      return v;
    }
  }

  private StoredObject current(String namespace, String name) {
    return ops.store().get(CORE, namespace, name).orElseThrow(() -> ApiException.notFound(V1, name));
  }

  private static void checkTypeMeta(JsonNode body) {
    String apiVersion = Json.text(body, "apiVersion");
    String kind = Json.text(body, "kind");
    if (apiVersion != null && !apiVersion.equals(V1.apiVersion())) {
      throw ApiException.badRequest("the API version in the data (" + apiVersion
          + ") does not match the expected API version (" + V1.apiVersion() + ")");
    }
    if (kind != null && !kind.equals(V1.kind())) {
      throw ApiException.badRequest("the kind in the data (" + kind + ") does not match the expected kind ("
          + V1.kind() + ")");
    }
  }

  /** Runs a core/v1 operation and names events.k8s.io in what it refuses, as a request here should read. */
  private static StoredObject renamed(java.util.function.Supplier<StoredObject> operation) {
    try {
      return operation.get();
    } catch (ApiException e) {
      ApiException.StatusDetails d = e.details();
      if (d == null || (d.group() != null && !d.group().isEmpty())) {
        throw e;
      }
      String message = e.getMessage();
      if (message.startsWith("events \"")) {
        message = V1.qualifiedResource() + message.substring("events".length());
      } else if (message.contains(" on events \"")) {
        message = message.replace(" on events \"", " on " + V1.qualifiedResource() + " \"");
      }
      throw new ApiException(e.code(), e.reason(), message, new ApiException.StatusDetails(d.name(), V1.group(),
          d.kind()));
    }
  }
}
