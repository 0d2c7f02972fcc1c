package io.berth.plugins.volumebinding;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * An informer-backed view of PVs or PVCs with in-memory "assumed" versions laid over it, as
 * upstream's {@code AssumeCache}: Reserve assumes the object as it will be once bound, so that
 * later cycles already see the volume as taken; the assumption is dropped when the API object
 * moves on (its resourceVersion changes, e.g. because PreBind wrote it) or when Unreserve
 * restores it. Thread-safe: every read and write of the assumptions holds {@code lock}.
 *
 * <p>Unlike upstream, which relies on Reserve being serial, {@link #assume} is a compare-and-set:
 * it fails when another owner (pod) holds a live assumption on the object or when the proposed
 * object was derived from an older version, so two pods can never take the same volume, and
 * {@link #restore} only drops the caller's own assumption.
 */
final class AssumeCache<T extends HasMetadata> {
  private final String kind;
  private final Function<String, Optional<T>> apiGet;
  private final Supplier<List<T>> apiList;
  private final Object lock = new Object();
  // guarded by lock: key -> assumed object, the API resourceVersion it was based on, its owner
  private final Map<String, Assumed<T>> assumed = new HashMap<>();

  private record Assumed<T>(T object, String baseVersion, String owner) {}

  /**
   * @param kind for messages ("PersistentVolume")
   * @param apiGet the latest API object by key ({@code name} or {@code namespace/name})
   * @param apiList every API object
   */
  AssumeCache(String kind, Function<String, Optional<T>> apiGet, Supplier<List<T>> apiList) {
    this.kind = kind;
    this.apiGet = apiGet;
    this.apiList = apiList;
  }

  /** {@code name} for cluster-scoped objects, {@code namespace/name} for namespaced ones. */
  static String keyOf(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null || ns.isEmpty() ? o.getMetadata().getName()
        : ns + "/" + o.getMetadata().getName();
  }

  /** The assumed object if its assumption is live, else the API object. */
  Optional<T> get(String key) {
    return apiGet.apply(key).map(this::overlay);
  }

  /** The API object, ignoring assumptions. */
  Optional<T> getApi(String key) {
    return apiGet.apply(key);
  }

  /** Every object that passes {@code filter}, assumed versions in place of API ones. */
  List<T> list(Predicate<T> filter) {
    List<T> out = new ArrayList<>();
    for (T api : apiList.get()) {
      T view = overlay(api);
      if (filter.test(view)) {
        out.add(view);
      }
    }
    return out;
  }

  private T overlay(T api) {
    String key = keyOf(api);
    synchronized (lock) {
      Assumed<T> a = assumed.get(key);
      if (a == null) {
        return api;
      }
      if (Objects.equals(a.baseVersion(), version(api))) {
        return a.object();
      }
      assumed.remove(key);
      return api;
    }
  }

  /**
   * Records {@code proposed} as the object's state until the API catches up.
   *
   * @throws AssumeConflictException when the object is gone, another owner holds a live
   *     assumption on it, or {@code proposed} was derived from a version that is not the latest
   */
  void assume(T proposed, String owner) {
    String key = keyOf(proposed);
    synchronized (lock) {
      Optional<T> api = apiGet.apply(key);
      if (api.isEmpty()) {
        throw new AssumeConflictException(kind + " \"" + key + "\" not found");
      }
      String current = version(api.get());
      Assumed<T> held = assumed.get(key);
      if (held != null && Objects.equals(held.baseVersion(), current)
          && !held.owner().equals(owner)) {
        throw new AssumeConflictException(kind + " \"" + key
            + "\" is already assumed by pod " + held.owner());
      }
      if (!Objects.equals(current, version(proposed))) {
        throw new AssumeConflictException(kind + " \"" + key + "\" is out of sync (stored: "
            + current + ", assume: " + version(proposed) + ")");
      }
      assumed.put(key, new Assumed<>(proposed, current, owner));
    }
  }

  /** Drops {@code owner}'s assumption on {@code key}; returns whether there was one. */
  boolean restore(String key, String owner) {
    synchronized (lock) {
      Assumed<T> held = assumed.get(key);
      if (held == null || !held.owner().equals(owner)) {
        return false;
      }
      assumed.remove(key);
      return true;
    }
  }

  /** The owner of the live-or-stale assumption on {@code key}, for tests and logs. */
  Optional<String> assumedBy(String key) {
    synchronized (lock) {
      Assumed<T> held = assumed.get(key);
      return held == null ? Optional.empty() : Optional.of(held.owner());
    }
  }

  private static String version(HasMetadata o) {
    return o.getMetadata().getResourceVersion();
  }

  /** An assumption that cannot be made; Reserve turns it into an Error status. */
  static final class AssumeConflictException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AssumeConflictException(String message) {
      super(message);
    }
  }
}
