package io.berth.embedded.server;

import io.berth.embedded.names.Uids;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The API server's write semantics, shared by the HTTP layer and the in-process controllers (garbage collector,
 * simulated kubelet): create with generated names, system metadata and defaults; update and patch with
 * resourceVersion preconditions, generation bumps, status-subresource separation and no-op detection; deletion
 * with grace periods, finalizers and propagation policies. Every operation is stored as one step under the
 * store's write lock. Named creates, updates, patches and in-process mutations do their work (defaults, admission,
 * validation, serialization) before the lock, from a lock-free read of the object; under the lock they store the
 * result only if that read is still the current version, and otherwise do the work again under the lock, so the
 * outcome is the one a fully locked write would have had.
 *
 * <p>Thread-safe: all state lives in the {@link ObjectStore} (the cached timestamp of {@link #now} is one
 * immutable value behind a volatile field).
 */
public final class ResourceOperations {

  /** Finalizer the garbage collector honours for {@code propagationPolicy=Orphan}. */
  public static final String ORPHAN_FINALIZER = "orphan";
  /** Finalizer the garbage collector honours for {@code propagationPolicy=Foreground}. */
  public static final String FOREGROUND_FINALIZER = "foregroundDeletion";

  private static final int GENERATE_NAME_ATTEMPTS = 8;
  private static final Set<ResourceType> STATUS_KEEPS_ANNOTATIONS = Set.of(ResourceTypes.DEPLOYMENTS,
      ResourceTypes.REPLICA_SETS, ResourceTypes.STATEFUL_SETS, ResourceTypes.DAEMON_SETS);

  private final ObjectStore store;
  private final ServerHooks hooks;
  private final Clock clock;

  public ResourceOperations(ObjectStore store, ServerHooks hooks, Clock clock) {
    this.store = store;
    this.hooks = hooks;
    this.clock = clock;
  }

  public ObjectStore store() {
    return store;
  }

  public ServerHooks hooks() {
    return hooks;
  }

  /** Now, as an RFC 3339 timestamp with second precision (how metav1.Time serializes). */
  public String now() {
    Instant instant = clock.instant();
    Stamp last = lastStamp;
    if (last != null && last.epochSecond() == instant.getEpochSecond()) {
      return last.text();
    }
    String text = timestamp(instant);
    lastStamp = new Stamp(instant.getEpochSecond(), text);
    return text;
  }

  /** The formatted timestamp of one second, reused while the clock stays in it. */
  private record Stamp(long epochSecond, String text) {
  }

  private volatile Stamp lastStamp;

  static String timestamp(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  public Clock clock() {
    return clock;
  }

  /** The object, or 404. */
  public StoredObject get(ResourceType type, String namespace, String name) {
    return store.get(type, namespace, name).orElseThrow(() -> ApiException.notFound(type, name));
  }

  // ---------------------------------------------------------------- create

  /**
   * Creates {@code body} (owned by this call) in {@code namespace}. With a given name, defaulting, admission and
   * validation run before the store's write lock (they read the store only through lock-free point reads and
   * consistent lists), and the lock is held only to re-check the namespace and the name and store the object. A
   * {@code generateName} create draws a name and does the same; when the name was taken in between, it draws again
   * and does the work under the lock.
   */
  public StoredObject create(ResourceType type, String namespace, ObjectNode body) {
    checkTypeMeta(type, body);
    ObjectNode meta = Json.metadata(body);
    String ns = scopeNamespace(type, namespace, meta);
    String given = Json.text(meta, "name");
    if (given != null && !given.isEmpty()) {
      // The same checks in the same order as under the lock, so errors are answered as before; repeated inside.
      if (type.namespaced()) {
        requireActiveNamespace(ns);
      }
      if (store.get(type, ns, given).isPresent()) {
        throw ApiException.alreadyExists(type, given);
      }
      ObjectDraft draft = new ObjectDraft(type, admitNew(type, given, body, meta));
      return store.write(() -> {
        if (type.namespaced()) {
          requireActiveNamespace(ns);
        }
        if (store.get(type, ns, given).isPresent()) {
          throw ApiException.alreadyExists(type, given);
        }
        return store.put(draft);
      });
    }
    String base = Json.text(meta, "generateName");
    int attempts = GENERATE_NAME_ATTEMPTS;
    if (base != null && !base.isEmpty()) {
      attempts--;
      // Draw a name and do the work before the lock; under it, keep the name if it is still free.
      if (type.namespaced()) {
        requireActiveNamespace(ns);
      }
      String candidate = hooks.generateName(base);
      if (store.get(type, ns, candidate).isEmpty()) {
        meta.put("name", candidate);
        // defaults work on the tree they get: a copy, so that the retry under the lock starts from the body as sent
        ObjectNode attempt = body.deepCopy();
        ObjectDraft draft = new ObjectDraft(type, admitNew(type, candidate, attempt, Json.metadata(attempt)));
        StoredObject stored = store.write(() -> {
          if (type.namespaced()) {
            requireActiveNamespace(ns);
          }
          return store.get(type, ns, candidate).isPresent() ? null : store.put(draft);
        });
        if (stored != null) {
          return stored;
        }
      }
    }
    int remaining = attempts;
    return store.write(() -> {
      if (type.namespaced()) {
        requireActiveNamespace(ns);
      }
      if (base == null || base.isEmpty()) {
        throw ApiException.invalid(type, "", "metadata.name: Required value: name or generateName is required");
      }
      String name = null;
      for (int i = 0; i < remaining && name == null; i++) {
        String candidate = hooks.generateName(base);
        if (store.get(type, ns, candidate).isEmpty()) {
          name = candidate;
        }
      }
      if (name == null) {
        throw ApiException.alreadyExists(type, base);
      }
      meta.put("name", name);
      return store.put(type, admitNew(type, name, body, meta));
    });
  }

  /**
   * Creates every object of {@code bodies} (owned by this call) in {@code namespace} (empty: each body's own) as
   * one atomic step: each gets exactly what {@link #create} gives it (generated names, system metadata, defaults,
   * validation) and its ADDED event, in list order. All or nothing: when one body is refused, nothing is stored and
   * the {@link ApiException} (the code and reason {@link #create} would answer) names the item's index and the
   * object, and the field as {@link #create} would. The work on each body (defaults, admission, validation,
   * serialization) is done before the store's write lock, in list order and against lock-free reads; the lock is
   * held to check again what a concurrent write could have changed (the namespaces, the names) and to store the
   * batch.
   */
  public List<StoredObject> createAll(ResourceType type, String namespace, List<ObjectNode> bodies) {
    List<Prepared> prepared = new ArrayList<>(bodies.size());
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < bodies.size(); i++) {
      ObjectNode body = bodies.get(i);
      try {
        checkTypeMeta(type, body);
        ObjectNode meta = Json.metadata(body);
        String ns = scopeNamespace(type, namespace, meta);
        boolean generated = Json.text(meta, "name") == null || Json.text(meta, "name").isEmpty();
        ObjectNode ready = prepareCreate(type, ns, body, meta);
        String name = Json.text(ready, "metadata", "name");
        if (!keys.add(StoredObject.keyOf(ns, name))) {
          throw ApiException.alreadyExists(type, name);
        }
        prepared.add(new Prepared(i, body, ns, generated, new ObjectDraft(type, ready)));
      } catch (ApiException e) {
        throw inBatch(type, i, body, bodies.size(), e);
      }
    }
    return store.write(() -> {
      for (int i = 0; i < prepared.size(); i++) {
        Prepared p = prepared.get(i);
        try {
          if (type.namespaced()) {
            requireActiveNamespace(p.namespace());
          }
          String name = Json.text(p.draft().tree(), "metadata", "name");
          if (store.get(type, p.namespace(), name).isPresent()) {
            if (!p.generated()) {
              throw ApiException.alreadyExists(type, name);
            }
            // a concurrent create took the generated name since: draw again, as create does under the lock
            prepared.set(i, p.renamed(freeName(type, p.namespace(), Json.text(p.body(), "metadata", "generateName"),
                keys)));
          }
        } catch (ApiException e) {
          throw inBatch(type, p.index(), p.body(), bodies.size(), e);
        }
      }
      List<StoredObject> stored = new ArrayList<>(prepared.size());
      for (Prepared p : prepared) {
        stored.add(store.put(p.draft()));
      }
      return stored;
    });
  }

  /** One body of a {@link #createAll} batch, drafted before the lock. */
  private record Prepared(int index, ObjectNode body, String namespace, boolean generated, ObjectDraft draft) {

    Prepared renamed(String name) {
      ObjectNode tree = draft.tree();
      Json.metadata(tree).put("name", name);
      Validation.validateName(draft.type(), name);
      return new Prepared(index, body, namespace, generated, new ObjectDraft(draft.type(), tree));
    }
  }

  /** A generated name free in the store and not among {@code taken} (store keys of the batch); under the lock. */
  private String freeName(ResourceType type, String ns, String base, Set<String> taken) {
    for (int i = 0; i < GENERATE_NAME_ATTEMPTS; i++) {
      String candidate = hooks.generateName(base);
      if (store.get(type, ns, candidate).isEmpty() && taken.add(StoredObject.keyOf(ns, candidate))) {
        return candidate;
      }
    }
    throw ApiException.alreadyExists(type, base);
  }

  private static ApiException inBatch(ResourceType type, int index, ObjectNode body, int size, ApiException e) {
    return new ApiException(e.code(), e.reason(), type.resource() + "[" + index + "] (" + describe(body) + ") of "
        + size + ", nothing was created: " + e.getMessage(), e.details());
  }

  private static String describe(ObjectNode body) {
    String ns = Json.text(body, "metadata", "namespace");
    String name = Json.text(body, "metadata", "name");
    String shown = name != null ? name : "generateName " + Json.text(body, "metadata", "generateName");
    return ns == null || ns.isEmpty() ? shown : ns + "/" + shown;
  }

  // The checks and system fields of a create (lock-free reads); returns the tree to store.
  private ObjectNode prepareCreate(ResourceType type, String ns, ObjectNode body, ObjectNode meta) {
    if (type.namespaced()) {
      requireActiveNamespace(ns);
    }
    String name = Json.text(meta, "name");
    if (name == null || name.isEmpty()) {
      String base = Json.text(meta, "generateName");
      if (base == null || base.isEmpty()) {
        throw ApiException.invalid(type, "", "metadata.name: Required value: name or generateName is required");
      }
      name = null;
      for (int i = 0; i < GENERATE_NAME_ATTEMPTS && name == null; i++) {
        String candidate = hooks.generateName(base);
        if (store.get(type, ns, candidate).isEmpty()) {
          name = candidate;
        }
      }
      if (name == null) {
        throw ApiException.alreadyExists(type, base);
      }
      meta.put("name", name);
    } else if (store.get(type, ns, name).isPresent()) {
      throw ApiException.alreadyExists(type, name);
    }
    return admitNew(type, name, body, meta);
  }

  /**
   * System metadata, defaults, admission and validation of a new object named {@code name}; works on {@code body}
   * itself (the defaults are applied in place) and returns the tree to store.
   */
  private ObjectNode admitNew(ResourceType type, String name, ObjectNode body, ObjectNode meta) {
    Validation.validateName(type, name);
    meta.put("uid", Uids.random());
    meta.put("creationTimestamp", now());
    meta.put("generation", 1);
    meta.remove("resourceVersion");
    meta.remove("deletionTimestamp");
    meta.remove("deletionGracePeriodSeconds");
    meta.remove("selfLink");
    if (type.resetStatusOnCreate()) {
      body.remove("status");
    }
    ObjectNode defaulted = hooks.applyDefaults(type, body, null, store);
    Validation.validate(type, defaulted);
    return defaulted;
  }

  private static void checkTypeMeta(ResourceType type, ObjectNode body) {
    String apiVersion = Json.text(body, "apiVersion");
    String kind = Json.text(body, "kind");
    if (apiVersion != null && !apiVersion.equals(type.apiVersion())) {
      throw ApiException.badRequest("the API version in the data (" + apiVersion
          + ") does not match the expected API version (" + type.apiVersion() + ")");
    }
    if (kind != null && !kind.equals(type.kind())) {
      throw ApiException.badRequest("the kind in the data (" + kind + ") does not match the expected kind ("
          + type.kind() + ")");
    }
    body.put("apiVersion", type.apiVersion());
    body.put("kind", type.kind());
  }

  private static String scopeNamespace(ResourceType type, String pathNamespace, ObjectNode meta) {
    String bodyNs = Json.text(meta, "namespace");
    if (!type.namespaced()) {
      meta.remove("namespace");
      return "";
    }
    if (pathNamespace == null || pathNamespace.isEmpty()) {
      if (bodyNs == null || bodyNs.isEmpty()) {
        throw ApiException.badRequest("the namespace of the object is required for " + type.resource());
      }
      return bodyNs;
    }
    if (bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(pathNamespace)) {
      throw ApiException.badRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    meta.put("namespace", pathNamespace);
    return pathNamespace;
  }

  private void requireActiveNamespace(String ns) {
    Optional<StoredObject> namespace = store.get(ResourceTypes.NAMESPACES, "", ns);
    if (namespace.isEmpty()) {
      throw ApiException.notFound(ResourceTypes.NAMESPACES, ns);
    }
    if (namespace.get().terminating()) {
      throw new ApiException(403, "Forbidden", "unable to create new content in namespace " + ns
          + " because it is being terminated");
    }
  }

  // ---------------------------------------------------------------- update and patch

  /** Replaces an object (PUT); {@code statusOnly} for the {@code /status} subresource. */
  public StoredObject update(ResourceType type, String namespace, String name, ObjectNode body, boolean statusOnly) {
    checkTypeMeta(type, body);
    ObjectNode meta = Json.metadata(body);
    String bodyName = Json.text(meta, "name");
    if (bodyName != null && !bodyName.equals(name)) {
      throw ApiException.badRequest("the name of the object (" + bodyName + ") does not match the name on the URL ("
          + name + ")");
    }
    String ns = type.namespaced() ? namespace : "";
    String bodyNs = Json.text(meta, "namespace");
    if (type.namespaced() && bodyNs != null && !bodyNs.isEmpty() && !bodyNs.equals(ns)) {
      throw ApiException.badRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    Optional<StoredObject> seen = store.get(type, ns, name);
    Attempt<Replacement> early = seen.isPresent()
        ? attempt(() -> replacement(type, seen.get(), body.deepCopy(), statusOnly)) : null;
    return store.write(() -> {
      Optional<StoredObject> current = store.get(type, ns, name);
      if (current.isEmpty()) {
        if (type.allowCreateOnUpdate() && !statusOnly) {
          meta.put("name", name);
          return create(type, ns, body);
        }
        throw ApiException.notFound(type, name);
      }
      if (early != null && current.get() == seen.get()) {
        return commit(early.get());
      }
      return replaceLocked(type, current.get(), body, statusOnly);
    });
  }

  /**
   * A replacement computed from a lock-free read, before the write lock: what to store, or the refusal to answer,
   * if that read is still the current version once the lock is held.
   */
  private record Attempt<T>(T value, ApiException failure) {

    T get() {
      if (failure != null) {
        throw failure;
      }
      return value;
    }
  }

  private static <T> Attempt<T> attempt(java.util.function.Supplier<T> compute) {
    try {
      return new Attempt<>(compute.get(), null);
    } catch (ApiException e) {
      return new Attempt<>(null, e);
    }
  }

  /**
   * Applies a patch of {@code contentType} (PATCH); {@code statusOnly} for {@code /status}. The patch is applied to
   * a lock-free read of the object before the write lock is taken; under the lock the result is stored if that
   * version is still current, otherwise the patch is applied again to the current version.
   */
  public StoredObject patch(ResourceType type, String namespace, String name, String contentType, byte[] patch,
      boolean statusOnly) {
    String ns = type.namespaced() ? namespace : "";
    Optional<StoredObject> seen = store.get(type, ns, name);
    Attempt<Replacement> early = seen.isPresent() ? attempt(() -> replacement(type, seen.get(),
        patched(type, ns, name, contentType, seen.get(), patch), statusOnly)) : null;
    return store.write(() -> {
      Optional<StoredObject> current = store.get(type, ns, name);
      if (current.isEmpty()) {
        if (contentType != null && contentType.startsWith("application/apply-patch") && !statusOnly) {
          ObjectNode created = hooks.applyPatch(type, contentType, Json.object(), patch);
          Json.metadata(created).put("name", name);
          return create(type, ns, created);
        }
        throw ApiException.notFound(type, name);
      }
      if (early != null && seen.get() == current.get()) {
        return commit(early.get());
      }
      return replaceLocked(type, current.get(), patched(type, ns, name, contentType, current.get(), patch),
          statusOnly);
    });
  }

  /** {@code current} with {@code patch} applied, its name, namespace and type meta checked and fixed. */
  private ObjectNode patched(ResourceType type, String ns, String name, String contentType, StoredObject current,
      byte[] patch) {
    ObjectNode patched = hooks.applyPatch(type, contentType, current.tree(), patch);
    String patchedName = Json.text(patched, "metadata", "name");
    if (patchedName != null && !patchedName.equals(name)) {
      throw ApiException.invalid(type, name, "metadata.name: Invalid value: \"" + patchedName
          + "\": field is immutable");
    }
    Json.metadata(patched).put("name", name);
    if (type.namespaced()) {
      Json.metadata(patched).put("namespace", ns);
    }
    checkTypeMeta(type, patched);
    return patched;
  }

  /**
   * Read-modify-write for in-process callers (no resourceVersion precondition): {@code change} gets a mutable copy
   * of the current object and returns the next version. Empty when the object does not exist. {@code change} runs
   * on a lock-free read before the write lock is taken, and once more under the lock when the object changed in
   * between: it must be a function of its argument.
   */
  public Optional<StoredObject> mutate(ResourceType type, String namespace, String name,
      UnaryOperator<ObjectNode> change, boolean statusOnly) {
    return mutateWith(type, namespace, name, current -> changed(current, change), statusOnly);
  }

  /**
   * A {@code /status} write for in-process callers (the simulated kubelet), cheaper than {@link #mutate} with
   * {@code statusOnly}: {@code change} gets the current object (read-only: never change it) and a mutable copy of
   * its {@code status} (empty when it has none) to change in place; only status and metadata are copied, the rest
   * of the next version is shared with the current one. Empty when the object does not exist. As with
   * {@link #mutate}, {@code change} runs on a lock-free read and once more under the lock when the object changed
   * in between: it must be a function of its arguments.
   */
  public Optional<StoredObject> mutateStatus(ResourceType type, String namespace, String name,
      BiConsumer<JsonNode, ObjectNode> change) {
    return mutateWith(type, namespace, name, current -> statusChanged(current, change), true);
  }

  private Optional<StoredObject> mutateWith(ResourceType type, String namespace, String name,
      java.util.function.Function<StoredObject, ObjectNode> candidateOf, boolean statusOnly) {
    Optional<StoredObject> seen = store.get(type, namespace, name);
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    Attempt<Replacement> early =
        attempt(() -> replacement(type, seen.get(), candidateOf.apply(seen.get()), statusOnly));
    return store.write(() -> {
      Optional<StoredObject> current = store.get(type, namespace, name);
      if (current.isEmpty()) {
        return Optional.<StoredObject>empty();
      }
      if (current.get() == seen.get()) {
        return Optional.of(commit(early.get()));
      }
      return Optional.of(replaceLocked(type, current.get(), candidateOf.apply(current.get()), statusOnly));
    });
  }

  /**
   * The body of a status write that keeps everything of {@code current} but the status {@code change} makes: its
   * resourceVersion (no conflict), its annotations (which the apps status strategies take from the body) and the
   * changed status; {@link #replacement} takes nothing else from a status write's body.
   */
  private static ObjectNode statusChanged(StoredObject current, BiConsumer<JsonNode, ObjectNode> change) {
    ObjectNode tree = current.tree();
    JsonNode status = tree.get("status");
    ObjectNode next = status instanceof ObjectNode s ? s.deepCopy() : Json.object();
    change.accept(tree, next);
    ObjectNode candidate = Json.object();
    ObjectNode meta = candidate.putObject("metadata");
    meta.put("resourceVersion", Long.toString(current.resourceVersion()));
    JsonNode annotations = Json.at(tree, "metadata", "annotations");
    if (annotations != null) {
      // shared, read-only: the next version's metadata is a copy that only gets it set
      meta.set("annotations", annotations);
    }
    candidate.set("status", next);
    return candidate;
  }

  private static ObjectNode changed(StoredObject current, UnaryOperator<ObjectNode> change) {
    ObjectNode next = change.apply(current.copy());
    Json.metadata(next).put("resourceVersion", Long.toString(current.resourceVersion()));
    return next;
  }

  /**
   * The next version of {@code current} an update to {@code candidate} gives, serialized; {@code draft} is null when
   * nothing changes (the write is a no-op and answers {@code current}).
   */
  private record Replacement(ResourceType type, StoredObject current, ObjectDraft draft) {
  }

  /** Stores a replacement; the caller holds the write lock and checked that its base is still current. */
  private StoredObject commit(Replacement replacement) {
    if (replacement.draft() == null) {
      return replacement.current();
    }
    StoredObject stored = store.put(replacement.draft());
    if (stored.terminating() && finalizers(stored.tree()).isEmpty() && graceElapsed(stored)) {
      return store.remove(replacement.type(), stored.namespace(), stored.name()).orElse(stored);
    }
    return stored;
  }

  private StoredObject replaceLocked(ResourceType type, StoredObject current, ObjectNode candidate,
      boolean statusOnly) {
    return commit(replacement(type, current, candidate, statusOnly));
  }

  /**
   * Checks {@code candidate} (owned by this call) as the next version of {@code current} and builds it: the
   * resourceVersion precondition, status-subresource separation, defaults, validation, generation. Reads nothing
   * but its arguments, so it may run before the write lock, against a lock-free read.
   */
  private Replacement replacement(ResourceType type, StoredObject current, ObjectNode candidate,
      boolean statusOnly) {
    String rv = Json.text(candidate, "metadata", "resourceVersion");
    if (rv != null && !rv.isEmpty() && !rv.equals(Long.toString(current.resourceVersion()))) {
      throw ApiException.conflict(type, current.name(),
          "the object has been modified; please apply your changes to the latest version and try again");
    }
    ObjectNode next;
    if (statusOnly) {
      if (!type.hasStatus()) {
        throw new ApiException(404, "NotFound", "the server could not find the requested resource");
      }
      // Only the top level (status) and metadata change below, so the rest is shared with the current version;
      // a custom resource's schema prunes and defaults in place anywhere, so it gets a whole copy.
      next = type.openApiSchema() != null ? current.copy() : current.copySharing(Set.of(), Set.of());
      JsonNode status = candidate.get("status");
      if (status == null || status.isNull()) {
        next.remove("status");
      } else {
        next.set("status", status);
      }
      if (type.openApiSchema() != null) {
        Validation.validate(type, next);
      }
      Validation.validateStatusUpdate(type, current.tree(), next);
      if (STATUS_KEEPS_ANNOTATIONS.contains(type)) {
        // The apps status strategies reset only spec and labels: annotations written through /status stick (the
        // deployment controller records its revision annotation that way).
        JsonNode annotations = Json.at(candidate, "metadata", "annotations");
        if (annotations == null) {
          Json.metadata(next).remove("annotations");
        } else {
          Json.metadata(next).set("annotations", annotations);
        }
      }
    } else {
      next = candidate;
      ObjectNode meta = Json.metadata(next);
      JsonNode currentMeta = current.tree().get("metadata");
      for (String field : List.of("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
          "generation", "namespace", "name")) {
        JsonNode value = currentMeta.get(field);
        if (value == null) {
          meta.remove(field);
        } else {
          meta.set(field, value);
        }
      }
      meta.remove("selfLink");
      if (type.hasStatus()) {
        JsonNode status = current.tree().get("status");
        if (status == null) {
          next.remove("status");
        } else {
          next.set("status", status);
        }
      }
      next = hooks.applyDefaults(type, next, current.tree(), store);
      Validation.validate(type, next);
      Validation.validateUpdate(type, current.tree(), next);
      if (current.terminating()) {
        Set<String> before = new HashSet<>(finalizers(current.tree()));
        for (String f : finalizers(next)) {
          if (!before.contains(f)) {
            throw ApiException.invalid(type, current.name(),
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
                    + "found new finalizers [\"" + f + "\"]");
          }
        }
      }
      if (specChanged(current.tree(), next)) {
        long generation = current.tree().path("metadata").path("generation").asLong(0);
        Json.metadata(next).put("generation", generation + 1);
      }
    }
    Json.metadata(next).put("resourceVersion", Long.toString(current.resourceVersion()));
    if (next.equals(current.tree())) {
      return new Replacement(type, current, null);
    }
    return new Replacement(type, current, new ObjectDraft(type, next));
  }

  /** True when anything but metadata and status differs. */
  private static boolean specChanged(JsonNode before, JsonNode after) {
    Set<String> names = new HashSet<>(before.propertyNames());
    names.addAll(after.propertyNames());
    for (String n : names) {
      if (n.equals("metadata") || n.equals("status") || n.equals("apiVersion") || n.equals("kind")) {
        continue;
      }
      if (!java.util.Objects.equals(before.get(n), after.get(n))) {
        return true;
      }
    }
    return false;
  }

  private static boolean graceElapsed(StoredObject o) {
    return o.tree().path("metadata").path("deletionGracePeriodSeconds").asLong(0) == 0;
  }

  /** The finalizers of an object tree. */
  public static List<String> finalizers(JsonNode tree) {
    JsonNode fins = Json.at(tree, "metadata", "finalizers");
    if (fins == null || !fins.isArray()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    fins.values().forEach(f -> out.add(f.asString()));
    return out;
  }

  // ---------------------------------------------------------------- delete

  /** The outcome of a delete: the object's state and whether it is gone for good. */
  public record DeleteResult(StoredObject object, boolean removed) {
  }

  /** Deletes an object as kube-apiserver does: graceful for bound pods, held by finalizers, propagation aware. */
  public DeleteResult delete(ResourceType type, String namespace, String name, DeleteOptions options) {
    String ns = type.namespaced() ? namespace : "";
    Optional<StoredObject> seen = store.get(type, ns, name);
    Attempt<Deletion> early = seen.isPresent() ? attempt(() -> deletion(type, name, seen.get(), options)) : null;
    return store.write(() -> {
      StoredObject current = get(type, ns, name);
      if (early != null && current == seen.get()) {
        return commit(type, early.get());
      }
      return commit(type, deletion(type, name, current, options));
    });
  }

  /**
   * What deleting {@code current} does: nothing more ({@code draft} null, not {@code remove}), store {@code draft}
   * (a graceful deletion or a finalizer change), or remove the object for good.
   */
  private record Deletion(StoredObject current, ObjectDraft draft, boolean remove) {
  }

  private DeleteResult commit(ResourceType type, Deletion deletion) {
    StoredObject current = deletion.current();
    if (deletion.remove()) {
      return new DeleteResult(store.remove(type, current.namespace(), current.name()).orElseThrow(), true);
    }
    if (deletion.draft() != null) {
      return new DeleteResult(store.put(deletion.draft()), false);
    }
    return new DeleteResult(current, false);
  }

  /** The deletion of {@code current}; reads nothing but its arguments and the clock (may run before the lock). */
  private Deletion deletion(ResourceType type, String name, StoredObject current, DeleteOptions options) {
    options.preconditionUid().ifPresent(uid -> {
      if (!uid.equals(current.uid())) {
        throw ApiException.conflict(type, name, "Precondition failed: UID in precondition: " + uid
            + ", UID in object meta: " + current.uid());
      }
    });
    options.preconditionResourceVersion().ifPresent(rv -> {
      if (!rv.equals(Long.toString(current.resourceVersion()))) {
        throw ApiException.conflict(type, name, "Precondition failed: ResourceVersion in precondition: " + rv
            + ", ResourceVersion in object meta: " + current.resourceVersion());
      }
    });
    long grace = type == ResourceTypes.PODS ? podGracePeriod(current, options) : 0;
    ObjectNode next = current.copy();
    ObjectNode meta = Json.metadata(next);
    List<String> fins = new ArrayList<>(finalizers(next));
    String policy = options.propagationPolicy().orElse("Background");
    if (policy.equals("Orphan") && !fins.contains(ORPHAN_FINALIZER)) {
      fins.remove(FOREGROUND_FINALIZER);
      fins.add(ORPHAN_FINALIZER);
    } else if (policy.equals("Foreground") && !fins.contains(FOREGROUND_FINALIZER)) {
      fins.remove(ORPHAN_FINALIZER);
      fins.add(FOREGROUND_FINALIZER);
    }
    if (current.terminating()) {
      // Only shortening a pod's grace period or switching the propagation finalizer changes anything now.
      long currentGrace = current.tree().path("metadata").path("deletionGracePeriodSeconds").asLong(0);
      boolean changed = false;
      if (type == ResourceTypes.PODS && grace < currentGrace) {
        meta.put("deletionGracePeriodSeconds", grace);
        meta.put("deletionTimestamp", timestamp(clock.instant().plusSeconds(grace)));
        changed = true;
      }
      if (!fins.equals(finalizers(current.tree()))) {
        setFinalizers(meta, fins);
        changed = true;
      }
      if (!changed) {
        return new Deletion(current, null, false);
      }
      if (fins.isEmpty() && grace == 0) {
        return new Deletion(current, null, true);
      }
      return new Deletion(current, new ObjectDraft(type, next), false);
    }
    if (grace > 0 || !fins.isEmpty()) {
      setFinalizers(meta, fins);
      meta.put("deletionTimestamp", timestamp(clock.instant().plusSeconds(grace)));
      meta.put("deletionGracePeriodSeconds", grace);
      return new Deletion(current, new ObjectDraft(type, next), false);
    }
    return new Deletion(current, null, true);
  }

  private static long podGracePeriod(StoredObject pod, DeleteOptions options) {
    JsonNode tree = pod.tree();
    String nodeName = Json.text(tree, "spec", "nodeName");
    String phase = Json.text(tree, "status", "phase");
    if (nodeName == null || nodeName.isEmpty() || "Succeeded".equals(phase) || "Failed".equals(phase)) {
      // An unscheduled or finished pod has no kubelet to wait for.
      return 0;
    }
    long grace = options.gracePeriodSeconds()
        .orElseGet(() -> tree.path("spec").path("terminationGracePeriodSeconds").asLong(30));
    return Math.max(0, grace);
  }

  private static void setFinalizers(ObjectNode meta, List<String> fins) {
    if (fins.isEmpty()) {
      meta.remove("finalizers");
    } else {
      ArrayNode arr = meta.putArray("finalizers");
      fins.forEach(arr::add);
    }
  }

  /** Removes {@code finalizer} from an object, deleting it for good when it was the last one and it is terminating. */
  public Optional<StoredObject> removeFinalizer(ResourceType type, String namespace, String name, String finalizer) {
    return mutate(type, namespace, name, obj -> {
      List<String> fins = new ArrayList<>(finalizers(obj));
      fins.remove(finalizer);
      setFinalizers(Json.metadata(obj), fins);
      return obj;
    }, false);
  }
}
