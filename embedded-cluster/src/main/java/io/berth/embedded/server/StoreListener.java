package io.berth.embedded.server;

/**
 * Receives every change the {@link ObjectStore} makes, in resourceVersion order. Called with the store's write lock
 * held, on the writing thread: an implementation must be quick and must not block or write to the store; hand work
 * to a thread of your own instead.
 */
@FunctionalInterface
public interface StoreListener {

  void onEvent(WatchEvent event);
}
