package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;

/**
 * An indexed, eventually consistent local cache of one collection, shared by any number of event
 * handlers (client-go's {@code SharedIndexInformer}): one {@link Reflector} feeds a
 * {@link DeltaFIFO}; one processing thread pops it, updates the {@link Indexer} and then notifies
 * every handler through the handler's own unbounded buffer, so a slow handler never blocks the
 * others or the reflector.
 *
 * <p>Contract, as upstream: an object whose key the cache already holds is an update, otherwise
 * an add; every handler sees, per object, the cache's states in order, after the cache and its
 * indexes were updated; a handler added after start first receives the cache's content as
 * {@code onAdd(obj, true)}; updates that did not change the resourceVersion go only to handlers
 * registered with a resync period (when due); a deletion missed while disconnected arrives as
 * {@code onDelete(lastKnown, true)} after the next relist.
 *
 * <p>Lifecycle: configure (indexers, transform) before {@link #start()}; handlers may be added
 * and removed at any time before {@link #stop()}; a stopped informer cannot be restarted. All
 * methods are thread-safe.
 */
public interface SharedIndexInformer<T extends HasMetadata> {

  /** Minimum resync period for a handler; shorter requests are raised to it. */
  Duration MINIMUM_RESYNC_PERIOD = Duration.ofSeconds(1);

  /**
   * An informer over {@code listerWatcher}.
   *
   * @param defaultResyncPeriod resync period of handlers added without one; zero for none
   */
  static <T extends HasMetadata> SharedIndexInformer<T> create(
      ListerWatcher<T> listerWatcher, Duration defaultResyncPeriod) {
    return create(listerWatcher, defaultResyncPeriod, Clock.SYSTEM);
  }

  /**
   * An informer whose backoff, watch-duration and resync timing run on {@code clock} (a manual
   * clock in tests).
   */
  static <T extends HasMetadata> SharedIndexInformer<T> create(
      ListerWatcher<T> listerWatcher, Duration defaultResyncPeriod, Clock clock) {
    return new DefaultSharedIndexInformer<>(listerWatcher, defaultResyncPeriod, clock,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /** Adds a handler with the informer's default resync period. */
  ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler);

  /**
   * Adds a handler that also wants every cached object re-delivered as an update (with unchanged
   * resourceVersion) about every {@code resyncPeriod}; zero for never. Periods below
   * {@link #MINIMUM_RESYNC_PERIOD} are raised to it. Before start the shortest requested period
   * becomes the informer's resync check period; after start a shorter request is raised to the
   * check period, and if the informer was started without any resync, resync is unavailable.
   *
   * @throws IllegalStateException if the informer has been stopped
   */
  ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler, Duration resyncPeriod);

  /**
   * Removes a handler; its undelivered notifications are dropped. Idempotent; unknown
   * registrations are ignored.
   */
  void removeEventHandler(ResourceEventHandlerRegistration registration);

  /**
   * Adds named index functions to the cache.
   *
   * @throws IllegalStateException if the informer has started
   * @throws IllegalArgumentException if a name is taken (including {@link Indexer#NAMESPACE_INDEX})
   */
  void addIndexers(Map<String, IndexFunction<T>> indexers);

  /** The cache, with the built-in {@link Indexer#NAMESPACE_INDEX}. Read only: never write to it. */
  Indexer<T> getIndexer();

  /** The cache as a {@link Store}. Read only: never write to it. */
  Store<T> getStore();

  /**
   * Sets a function applied once to every object received from the server before it enters the
   * queue and the cache (for example to drop {@code managedFields}). The object it receives is
   * freshly decoded and seen by no one else yet, so it may be modified in place and returned. It
   * runs on the reflector thread and must be fast.
   *
   * @throws IllegalStateException if the informer has started
   */
  void setTransform(UnaryOperator<T> transform);

  /** Starts the informer's threads and returns; a second call does nothing. */
  void start();

  /** Starts the informer and blocks until {@link #stop()} (or interruption, which stops it). */
  void run();

  /** Stops list/watch, processing and handler delivery. Idempotent. */
  void stop();

  boolean isStarted();

  boolean isStopped();

  /** Whether the cache has been filled from a complete list and all of it has been processed. */
  boolean hasSynced();

  /**
   * Waits up to {@code timeout} for {@link #hasSynced()} (counting from now, whether or not the
   * informer has started yet); returns whether it synced. Returns false early once stopped.
   */
  boolean awaitSynced(Duration timeout) throws InterruptedException;

  /**
   * Whether the reflector's watch is open now. A synced informer that is not watching is serving
   * an aging cache: report it as unhealthy if it lasts.
   */
  boolean isWatching();

  /** The resourceVersion the cache was last synced to; {@code ""} before the first list. */
  String lastSyncResourceVersion();
}
