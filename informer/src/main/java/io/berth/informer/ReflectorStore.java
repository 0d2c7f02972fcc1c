package io.berth.informer;

import java.util.List;

/**
 * Where a {@link Reflector} writes what it lists and watches: {@link DeltaFIFO} in an informer, or
 * a plain {@link ThreadSafeStore} for a reflector that only mirrors a collection. All calls come
 * from the reflector's threads (its run thread and its resync thread); implementations must be
 * thread-safe.
 */
public interface ReflectorStore<T> {

  /** A watch ADDED event. */
  void add(T obj);

  /** A watch MODIFIED event. */
  void update(T obj);

  /** A watch DELETED event; {@code obj} is the last state the server reported. */
  void delete(T obj);

  /** The complete result of a (re)list, observed at {@code resourceVersion}. */
  void replace(List<T> items, String resourceVersion);

  /** A periodic resync tick (only when the reflector has a resync period). */
  void resync();
}
