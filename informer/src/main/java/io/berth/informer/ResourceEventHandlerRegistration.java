package io.berth.informer;

/**
 * The handle returned when a {@link ResourceEventHandler} is added to a
 * {@link SharedIndexInformer}: pass it back to {@code removeEventHandler}, or ask whether the
 * handler has synced. Thread-safe.
 */
public interface ResourceEventHandlerRegistration {

  /**
   * True once the informer has synced and this handler has been called for every object of its
   * initial list (the informer's first list, or the cache's content when the handler was added
   * after start).
   */
  boolean hasSynced();
}
