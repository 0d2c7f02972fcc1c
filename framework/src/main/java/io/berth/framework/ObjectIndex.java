package io.berth.framework;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Objects of one kind looked up by a key computed from each object, as client-go's
 * {@code Indexer.ByIndex}: a plugin asks for one through {@link Handle#index} (the members of a
 * pod group, say) instead of scanning a lister on every call. Backed by the informer's own index
 * when the scheduler has informers, by a scan of the lister otherwise. Thread-safe; the returned
 * objects are shared with the cache and must not be mutated.
 */
@FunctionalInterface
public interface ObjectIndex<T extends HasMetadata> {

  /** The objects one of whose keys is {@code key}; empty when none. */
  List<T> get(String key);

  /** An index that scans {@code lister} on every call: for tests and handles without informers. */
  static <T extends HasMetadata> ObjectIndex<T> scanning(ObjectLister<T> lister,
      Function<? super T, List<String>> keys) {
    return key -> {
      List<T> out = new ArrayList<>();
      for (T obj : lister.list()) {
        if (keys.apply(obj).contains(key)) {
          out.add(obj);
        }
      }
      return out;
    };
  }
}
