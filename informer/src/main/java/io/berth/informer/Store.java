package io.berth.informer;

import java.util.List;
import java.util.Optional;

/**
 * A keyed cache of objects, key {@code namespace/name} or {@code name} (see {@link Cache}).
 * Implementations are thread-safe; every read is answered from one consistent snapshot. Objects
 * returned are shared with the informer and every other reader: never mutate them.
 *
 * <p>An informer's store is written only by the informer's processing thread; callers that obtain
 * it through {@code SharedIndexInformer.getStore()} must only read.
 */
public interface Store<T> {

  /** Inserts or replaces the object under its key. */
  void add(T obj);

  /** Same as {@link #add}: inserts or replaces the object under its key. */
  void update(T obj);

  /** Removes the object with the same key as {@code obj}, if any. */
  void delete(T obj);

  /** Atomically replaces the whole content with {@code items}. */
  void replace(List<T> items, String resourceVersion);

  /** The stored object with the same key as {@code obj}. */
  Optional<T> get(T obj);

  /** The stored object under {@code key}. */
  Optional<T> getByKey(String key);

  /** All stored objects, in no particular order; a fresh list the caller owns. */
  List<T> list();

  /** All keys, in no particular order; a fresh list the caller owns. */
  List<String> listKeys();
}
