package io.berth.informer;

import java.util.List;
import java.util.Map;

/**
 * A {@link Store} with named secondary indexes. Each index is defined by an {@link IndexFunction}
 * that maps an object to zero or more index values; the indexer keeps, per index and value, the
 * set of keys whose object currently produces that value. Index maintenance on add, update,
 * delete and replace leaves no stale entries. Thread-safe; see {@link ThreadSafeStore}.
 */
public interface Indexer<T> extends Store<T> {

  /** Name of the built-in index by namespace ({@code ""} for cluster-scoped objects). */
  String NAMESPACE_INDEX = "namespace";

  /**
   * Objects whose index values under {@code indexName} intersect those of {@code obj}.
   *
   * @throws IllegalArgumentException if the index does not exist
   */
  List<T> index(String indexName, T obj);

  /**
   * Keys of the objects indexed under {@code indexName} with {@code indexedValue}.
   *
   * @throws IllegalArgumentException if the index does not exist
   */
  List<String> indexKeys(String indexName, String indexedValue);

  /**
   * All values currently present in the index {@code indexName} (with at least one object).
   *
   * @throws IllegalArgumentException if the index does not exist
   */
  List<String> listIndexFuncValues(String indexName);

  /**
   * Objects indexed under {@code indexName} with {@code indexedValue}.
   *
   * @throws IllegalArgumentException if the index does not exist
   */
  List<T> byIndex(String indexName, String indexedValue);

  /** The index functions by name; an immutable snapshot. */
  Map<String, IndexFunction<T>> getIndexers();

  /**
   * Adds index functions. Only allowed while the store is empty (as in client-go), so that no
   * index is ever partially built.
   *
   * @throws IllegalStateException if the store already holds objects
   * @throws IllegalArgumentException if an index with one of the names already exists
   */
  void addIndexers(Map<String, IndexFunction<T>> newIndexers);
}
