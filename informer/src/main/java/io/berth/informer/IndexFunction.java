package io.berth.informer;

import java.util.List;

/**
 * Computes the values under which an object is indexed (for example a pod's
 * {@code spec.nodeName}). Called under the store's write lock on every add, update and replace,
 * so it must be fast, side-effect free and must not call back into the store. Returning an empty
 * list leaves the object out of the index.
 */
@FunctionalInterface
public interface IndexFunction<T> {

  /** The index values of {@code obj}; never null. */
  List<String> index(T obj);
}
