package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Typed, read-only queries over an informer's {@link Indexer} (client-go's generated listers):
 * all objects, one namespace's (through the built-in namespace index when present), one object
 * by name, or an index lookup. Every result is answered from the cache, never the API server.
 * The objects are shared with the cache and every other reader: never mutate them. Thread-safe.
 */
public final class Lister<T extends HasMetadata> {

  private final Indexer<T> indexer;

  public Lister(Indexer<T> indexer) {
    this.indexer = Objects.requireNonNull(indexer, "indexer");
  }

  /** Every cached object. */
  public List<T> list() {
    return indexer.list();
  }

  /** The cached objects in {@code namespace}. */
  public List<T> list(String namespace) {
    if (indexer.getIndexers().containsKey(Indexer.NAMESPACE_INDEX)) {
      return indexer.byIndex(Indexer.NAMESPACE_INDEX, namespace);
    }
    List<T> result = new ArrayList<>();
    for (T obj : indexer.list()) {
      if (namespace.equals(obj.getMetadata().getNamespace())) {
        result.add(obj);
      }
    }
    return result;
  }

  /** The namespaced object {@code namespace/name}. */
  public Optional<T> get(String namespace, String name) {
    return indexer.getByKey(Cache.metaNamespaceKey(namespace, name));
  }

  /** The cluster-scoped object {@code name}. */
  public Optional<T> get(String name) {
    return indexer.getByKey(name);
  }

  /**
   * The objects indexed under {@code indexName} with {@code value}.
   *
   * @throws IllegalArgumentException if the index does not exist
   */
  public List<T> byIndex(String indexName, String value) {
    return indexer.byIndex(indexName, value);
  }
}
