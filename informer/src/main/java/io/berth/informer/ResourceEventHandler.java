package io.berth.informer;

/**
 * Receives an informer's notifications for one collection. Each registered handler gets its own
 * unbounded buffer and is called by one thread at a time, in order; a slow handler delays only
 * itself. Handlers must not mutate the objects they receive (they are the cache's), and should
 * hand lengthy work to a work queue. Exceptions thrown by a handler are logged and the
 * notification is skipped.
 *
 * <p>All methods default to doing nothing, so a handler overrides only what it needs.
 */
public interface ResourceEventHandler<T> {

  /**
   * An object appeared in the cache.
   *
   * @param isInInitialList true when the object is part of the state the handler starts from: the
   *     informer's first list, or (for a handler added after the informer started) the cache's
   *     content at registration
   */
  default void onAdd(T obj, boolean isInInitialList) {}

  /**
   * An object in the cache changed, or was re-confirmed: {@code oldObj} is the previous cached
   * state (several changes may have been merged). Updates whose resourceVersion did not change
   * (periodic resyncs, relists) reach only handlers registered with a resync period, when due.
   */
  default void onUpdate(T oldObj, T newObj) {}

  /**
   * An object left the cache.
   *
   * @param obj the final state reported by the server, or, when {@code finalStateUnknown}, the
   *     last state this client knew (the deletion was missed while the watch was down and detected
   *     by a relist; client-go's {@code DeletedFinalStateUnknown})
   */
  default void onDelete(T obj, boolean finalStateUnknown) {}
}
