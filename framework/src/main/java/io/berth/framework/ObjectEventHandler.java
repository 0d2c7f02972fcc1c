package io.berth.framework;

/**
 * A plugin's handler of an informer's notifications for one kind (upstream plugins add handlers to the shared
 * informer factory's informers, as CapacityScheduling does for pods). Called by one thread at a time, in order, on
 * the informer's delivery thread: it must not block, and must not mutate the objects (they are the cache's). An
 * exception is logged and the notification skipped. Every method defaults to doing nothing.
 */
public interface ObjectEventHandler<T> {

  /** An object appeared in the cache (also every cached object, when the handler is added). */
  default void onAdd(T obj) {}

  /** An object changed: {@code oldObj} is the previous cached state. */
  default void onUpdate(T oldObj, T newObj) {}

  /** An object left the cache; {@code obj} is its last known state. */
  default void onDelete(T obj) {}
}
