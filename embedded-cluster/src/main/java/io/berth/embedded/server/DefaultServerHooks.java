package io.berth.embedded.server;

import io.berth.embedded.defaults.AdmissionException;
import io.berth.embedded.defaults.ApiDefaults;
import io.berth.embedded.defaults.PriorityClassInfo;
import io.berth.embedded.defaults.PriorityClassLookup;
import io.berth.embedded.names.NameGenerator;
import io.berth.embedded.patch.PatchException;
import io.berth.embedded.patch.PatchType;
import io.berth.embedded.selector.FieldLabels;
import io.berth.embedded.selector.FieldSelector;
import io.berth.embedded.selector.LabelSelector;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's API machinery: label and field selectors, JSON merge, strategic merge, JSON and apply patches, API
 * defaults with PriorityClass admission, and generated names; their failures become API errors (400 for malformed
 * input, 422 for patches that cannot apply, 403 for admission refusals). Thread-safe; its only state is a cache of
 * decoded PriorityClasses, a synchronized weak map keyed by stored versions, and the last global default class
 * decided, one immutable value behind a volatile field.
 */
public final class DefaultServerHooks implements ServerHooks {

  private final ApiDefaults defaults;
  private final NameGenerator names = NameGenerator.create();
  // thread-safe (a synchronized weak map): stored PriorityClass versions (by identity) -> what they say; an entry
  // goes when its version is no longer stored anywhere
  private final Map<StoredObject, PriorityClassInfo> decodedClasses =
      java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

  /** The global default PriorityClass of {@code store} as of its PriorityClass write {@code version}. */
  private record GlobalDefault(ObjectStore store, long version, Optional<PriorityClassInfo> info) {
  }

  // the last global default decided (an immutable value; a race only decides it twice)
  private volatile GlobalDefault globalDefault;

  public DefaultServerHooks(Clock clock) {
    this.defaults = new ApiDefaults(clock);
  }

  @Override
  public ObjectNode applyDefaults(ResourceType type, ObjectNode obj, JsonNode previous, ObjectStore store) {
    try {
      if (previous == null) {
        // the server owns obj (ServerHooks may mutate it): no copy
        return defaults.applyOnCreateInPlace(type.group(), type.resource(), obj, priorityClasses(store));
      }
      return defaults.applyOnUpdateInPlace(type.group(), type.resource(), obj, previous);
    } catch (AdmissionException e) {
      String name = Json.text(obj, "metadata", "name");
      throw new ApiException(403, "Forbidden", type.qualifiedResource() + " \"" + name + "\" is forbidden: "
          + e.getMessage(), new ApiException.StatusDetails(name, type.group(), type.resource()));
    }
  }

  /**
   * The PriorityClasses in the store, read when a pod is created (the priority admission plugin), as
   * kube-apiserver's plugin reads them from a lister: without the store lock, each class decoded once per stored
   * version ({@link #decoded}) instead of once per pod.
   */
  private PriorityClassLookup priorityClasses(ObjectStore store) {
    return new PriorityClassLookup() {
      @Override
      public Optional<PriorityClassInfo> byName(String name) {
        return store.get(ResourceTypes.PRIORITY_CLASSES, "", name).map(DefaultServerHooks.this::decoded);
      }

      @Override
      public Optional<PriorityClassInfo> globalDefault() {
        // Decided again only after a PriorityClass write: the version is read before the classes, so a write
        // racing this read leaves a version behind that the next lookup sees as stale.
        long version = store.lastWrite(ResourceTypes.PRIORITY_CLASSES);
        GlobalDefault known = globalDefault;
        if (known != null && known.store() == store && known.version() == version) {
          return known.info();
        }
        PriorityClassInfo lowest = null;
        for (StoredObject o : store.peek(ResourceTypes.PRIORITY_CLASSES)) {
          PriorityClassInfo info = decoded(o);
          if (info.globalDefault() && (lowest == null || info.value() < lowest.value())) {
            lowest = info;
          }
        }
        Optional<PriorityClassInfo> found = Optional.ofNullable(lowest);
        globalDefault = new GlobalDefault(store, version, found);
        return found;
      }
    };
  }

  /** The class a stored PriorityClass version describes, decoded once per version. */
  private PriorityClassInfo decoded(StoredObject priorityClass) {
    return decodedClasses.computeIfAbsent(priorityClass, o -> PriorityClassInfo.fromObject(o.tree()));
  }

  @Override
  public ObjectNode applyPatch(ResourceType type, String contentType, ObjectNode current, byte[] body) {
    PatchType patchType = PatchType.fromContentType(contentType)
        .orElseThrow(() -> ApiException.unsupportedMediaType(contentType));
    String kind = Optional.ofNullable(Json.text(current, "kind")).orElse(type.kind());
    String apiVersion = Optional.ofNullable(Json.text(current, "apiVersion")).orElse(type.apiVersion());
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    try {
      return patchType.apply(group, kind, current, new String(body, StandardCharsets.UTF_8));
    } catch (PatchException e) {
      int code = e.status().code();
      throw new ApiException(code, code == 400 ? "BadRequest" : "Invalid", e.getMessage());
    }
  }

  @Override
  public Predicate<StoredObject> labelSelector(String selector) {
    LabelSelector parsed;
    try {
      parsed = LabelSelector.parse(selector);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("unable to parse requirement: " + e.getMessage());
    }
    return o -> parsed.matches(o.labels());
  }

  @Override
  public Predicate<StoredObject> fieldSelector(ResourceType type, String selector) {
    FieldSelector parsed;
    try {
      parsed = FieldSelector.parse(selector);
      FieldLabels.validate(parsed, type.group(), type.resource());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(e.getMessage());
    }
    return o -> {
      Function<String, Optional<String>> values = FieldLabels.fieldValues(type.group(), type.resource(), o.tree());
      return parsed.matches(values);
    };
  }

  @Override
  public Predicate<Map<String, String>> labelSelectorObject(JsonNode selector) {
    if (selector == null || selector.isNull() || selector.isMissingNode()) {
      return labels -> true;
    }
    LabelSelector parsed;
    try {
      parsed = LabelSelector.fromLabelSelector(selector);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("invalid label selector: " + e.getMessage());
    }
    return parsed::matches;
  }

  @Override
  public String generateName(String base) {
    return names.generateName(base);
  }
}
