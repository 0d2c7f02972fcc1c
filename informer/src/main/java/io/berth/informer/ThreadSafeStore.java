package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The thread-safe {@link Indexer} behind every informer: a map from {@link Cache#metaNamespaceKey}
 * to object plus, per named index, a map from index value to the set of keys producing it.
 * Readers share a read lock and get fresh lists; writers take the write lock, under which index
 * functions run. The store never copies objects: the key string of an object is shared between
 * the item map and every index set, so an index entry costs one set slot.
 *
 * <p>Also a {@link ReflectorStore}, so a {@link Reflector} can mirror a collection straight into
 * it (resync is then a no-op).
 */
public final class ThreadSafeStore<T extends HasMetadata> implements Indexer<T>, ReflectorStore<T> {

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  // guarded by lock
  private final Map<String, T> items = new HashMap<>();
  // guarded by lock; insertion-ordered so index iteration is deterministic
  private final Map<String, IndexFunction<T>> indexers = new LinkedHashMap<>();
  // guarded by lock; index name -> index value -> keys. Invariant: every key in a set is in items
  // and its object produces that value; no set is empty.
  private final Map<String, Map<String, Set<String>>> indices = new HashMap<>();

  /** An empty store with no indexes. */
  public ThreadSafeStore() {}

  /** An empty store with the given indexes. */
  public ThreadSafeStore(Map<String, IndexFunction<T>> indexers) {
    addIndexers(indexers);
  }

  /** An empty store with only the built-in {@link Indexer#NAMESPACE_INDEX}. */
  public static <T extends HasMetadata> ThreadSafeStore<T> withNamespaceIndex() {
    return new ThreadSafeStore<>(Map.of(NAMESPACE_INDEX, Cache::metaNamespaceIndex));
  }

  @Override
  public void add(T obj) {
    put(Cache.metaNamespaceKey(obj), obj);
  }

  @Override
  public void update(T obj) {
    put(Cache.metaNamespaceKey(obj), obj);
  }

  @Override
  public void delete(T obj) {
    remove(Cache.metaNamespaceKey(obj));
  }

  /** Stores {@code obj} under {@code key} and returns the object it replaced, or null. */
  T put(String key, T obj) {
    lock.writeLock().lock();
    try {
      T old = items.put(key, obj);
      updateIndices(old, obj, key);
      return old;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Removes the object under {@code key} and returns it, or null if there was none. */
  T remove(String key) {
    lock.writeLock().lock();
    try {
      T old = items.remove(key);
      if (old != null) {
        updateIndices(old, null, key);
      }
      return old;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public void replace(List<T> newItems, String resourceVersion) {
    lock.writeLock().lock();
    try {
      items.clear();
      for (Map<String, Set<String>> index : indices.values()) {
        index.clear();
      }
      for (T obj : newItems) {
        String key = Cache.metaNamespaceKey(obj);
        T previous = items.put(key, obj);
        // a list never holds the same key twice, but stay correct if it does
        updateIndices(previous, obj, key);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** No-op: a plain store has nothing to resync. */
  @Override
  public void resync() {}

  @Override
  public Optional<T> get(T obj) {
    return getByKey(Cache.metaNamespaceKey(obj));
  }

  @Override
  public Optional<T> getByKey(String key) {
    lock.readLock().lock();
    try {
      return Optional.ofNullable(items.get(key));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<T> list() {
    lock.readLock().lock();
    try {
      return new ArrayList<>(items.values());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<String> listKeys() {
    lock.readLock().lock();
    try {
      return new ArrayList<>(items.keySet());
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Number of stored objects. */
  public int size() {
    lock.readLock().lock();
    try {
      return items.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<T> index(String indexName, T obj) {
    lock.readLock().lock();
    try {
      IndexFunction<T> function = indexFunction(indexName);
      Map<String, Set<String>> index = indices.get(indexName);
      List<String> values = function.index(obj);
      Set<String> keys;
      if (values.size() == 1) {
        keys = index.getOrDefault(values.get(0), Set.of());
      } else {
        keys = new HashSet<>();
        for (String value : values) {
          keys.addAll(index.getOrDefault(value, Set.of()));
        }
      }
      List<T> result = new ArrayList<>(keys.size());
      for (String key : keys) {
        result.add(items.get(key));
      }
      return result;
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<String> indexKeys(String indexName, String indexedValue) {
    lock.readLock().lock();
    try {
      indexFunction(indexName);
      return new ArrayList<>(indices.get(indexName).getOrDefault(indexedValue, Set.of()));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<String> listIndexFuncValues(String indexName) {
    lock.readLock().lock();
    try {
      indexFunction(indexName);
      return new ArrayList<>(indices.get(indexName).keySet());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public List<T> byIndex(String indexName, String indexedValue) {
    lock.readLock().lock();
    try {
      indexFunction(indexName);
      Set<String> keys = indices.get(indexName).getOrDefault(indexedValue, Set.of());
      List<T> result = new ArrayList<>(keys.size());
      for (String key : keys) {
        result.add(items.get(key));
      }
      return result;
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public Map<String, IndexFunction<T>> getIndexers() {
    lock.readLock().lock();
    try {
      return Collections.unmodifiableMap(new LinkedHashMap<>(indexers));
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void addIndexers(Map<String, IndexFunction<T>> newIndexers) {
    lock.writeLock().lock();
    try {
      if (!items.isEmpty()) {
        throw new IllegalStateException("cannot add indexers to a store that already holds objects");
      }
      for (String name : newIndexers.keySet()) {
        if (indexers.containsKey(name)) {
          throw new IllegalArgumentException("indexer conflict: " + name);
        }
      }
      for (Map.Entry<String, IndexFunction<T>> entry : newIndexers.entrySet()) {
        indexers.put(entry.getKey(), entry.getValue());
        indices.put(entry.getKey(), new HashMap<>());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  // Requires lock (read or write).
  private IndexFunction<T> indexFunction(String indexName) {
    IndexFunction<T> function = indexers.get(indexName);
    if (function == null) {
      throw new IllegalArgumentException("index does not exist: " + indexName);
    }
    return function;
  }

  /*
   * Moves `key` from the index values of oldObj to those of newObj, for every index. Either object
   * may be null (add: no old; delete: no new). When an index yields the same values for both
   * (the common case: a pod update rarely changes its namespace or node), nothing is touched.
   * Requires the write lock.
   */
  private void updateIndices(T oldObj, T newObj, String key) {
    for (Map.Entry<String, IndexFunction<T>> entry : indexers.entrySet()) {
      IndexFunction<T> function = entry.getValue();
      List<String> oldValues = oldObj == null ? List.of() : function.index(oldObj);
      List<String> newValues = newObj == null ? List.of() : function.index(newObj);
      if (oldValues.equals(newValues)) {
        continue;
      }
      Map<String, Set<String>> index = indices.get(entry.getKey());
      for (String value : oldValues) {
        if (newValues.contains(value)) {
          continue;
        }
        Set<String> keys = index.get(value);
        if (keys != null) {
          keys.remove(key);
          if (keys.isEmpty()) {
            index.remove(value);
          }
        }
      }
      for (String value : newValues) {
        index.computeIfAbsent(value, v -> new HashSet<>()).add(key);
      }
    }
  }
}
