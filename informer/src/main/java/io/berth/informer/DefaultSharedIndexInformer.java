package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SharedIndexInformer} implementation: a {@link Reflector} on its own thread feeding a
 * {@link DeltaFIFO} whose known objects are the {@link ThreadSafeStore}; a processing thread
 * popping the queue and applying each key's deltas to the store and the {@link SharedProcessor};
 * handler delivery on a cached thread pool (one drain task per busy handler).
 *
 * <p>Locks, always taken in this order: {@code startedLock} (lifecycle and configuration), the
 * queue's lock (held by pop while deltas are processed), {@code blockDeltas} (held while deltas
 * are applied and while a handler joins or leaves, so a late handler's initial snapshot and the
 * stream of notifications neither overlap nor leave a gap), then the processor's and listeners'
 * locks.
 */
final class DefaultSharedIndexInformer<T extends HasMetadata> implements SharedIndexInformer<T> {

  private static final Logger log = LoggerFactory.getLogger(DefaultSharedIndexInformer.class);

  private final ListerWatcher<T> listerWatcher;
  private final String description;
  private final Clock clock;
  private final DoubleSupplier random;
  private final Duration defaultEventHandlerResyncPeriod;
  // thread-safe; written only by the processing thread (and by replace/delete in its pop callback)
  private final ThreadSafeStore<T> indexer = ThreadSafeStore.withNamespaceIndex();
  private final SharedProcessor<T> processor;

  private final Object startedLock = new Object();
  // guarded by startedLock
  private Duration resyncCheckPeriod;
  // guarded by startedLock
  private UnaryOperator<T> transform;
  // guarded by startedLock; the threads below are set when started
  private Thread reflectorThread;
  private Thread processingThread;
  private ExecutorService handlerExecutor;
  private volatile boolean started;
  private volatile boolean stopped;

  private final ReentrantLock blockDeltas = new ReentrantLock();
  // set once, under startedLock, before `started` is published
  private volatile DeltaFIFO<T> fifo;
  private volatile Reflector<T> reflector;
  private final CountDownLatch startedLatch = new CountDownLatch(1);
  private final CountDownLatch stoppedLatch = new CountDownLatch(1);

  DefaultSharedIndexInformer(ListerWatcher<T> listerWatcher, Duration defaultResyncPeriod, Clock clock,
      DoubleSupplier random) {
    this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
    this.description = listerWatcher.description();
    if (defaultResyncPeriod.isNegative()) {
      throw new IllegalArgumentException("negative resync period " + defaultResyncPeriod);
    }
    this.defaultEventHandlerResyncPeriod = defaultResyncPeriod;
    this.resyncCheckPeriod = defaultResyncPeriod;
    this.clock = clock;
    this.random = random;
    this.processor = new SharedProcessor<>(clock);
  }

  /**
   * A handler's effective period: zero if it wants none; zero (with a warning) if the informer
   * does no resyncs; never below the informer's check period.
   */
  static Duration determineResyncPeriod(Duration desired, Duration check) {
    if (desired.isZero()) {
      return desired;
    }
    if (check.isZero()) {
      log.warn("resync period {} ignored: this informer does not resync", desired);
      return Duration.ZERO;
    }
    if (desired.compareTo(check) < 0) {
      log.warn("resync period {} raised to the informer's resync check period {}", desired, check);
      return check;
    }
    return desired;
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler) {
    return addEventHandler(handler, defaultEventHandlerResyncPeriod);
  }

  @Override
  public ResourceEventHandlerRegistration addEventHandler(ResourceEventHandler<? super T> handler,
      Duration resyncPeriod) {
    Objects.requireNonNull(handler, "handler");
    if (resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("negative resync period " + resyncPeriod);
    }
    synchronized (startedLock) {
      if (stopped) {
        throw new IllegalStateException("handler not added: informer for " + description + " has stopped");
      }
      Duration period = resyncPeriod;
      if (!period.isZero()) {
        if (period.compareTo(MINIMUM_RESYNC_PERIOD) < 0) {
          log.warn("resync period {} too small, raised to {}", period, MINIMUM_RESYNC_PERIOD);
          period = MINIMUM_RESYNC_PERIOD;
        }
        // Deviation from upstream: before start, a first handler asking for resyncs enables them
        // even if the informer was created without a default period.
        if (resyncCheckPeriod.isZero() || period.compareTo(resyncCheckPeriod) < 0) {
          if (started) {
            if (!resyncCheckPeriod.isZero()) {
              log.warn("resync period {} is below the running informer's check period {}; using that",
                  period, resyncCheckPeriod);
              period = resyncCheckPeriod;
            }
          } else {
            resyncCheckPeriod = period;
            processor.resyncCheckPeriodChanged(period);
          }
        }
      }
      ProcessorListener<T> listener = new ProcessorListener<>(handler, period,
          determineResyncPeriod(period, resyncCheckPeriod), clock.nanoTime(), this::hasSynced, description);
      if (!started) {
        processor.addListener(listener);
        return listener;
      }
      // Join safely: no deltas are applied while the snapshot is queued to the new handler.
      blockDeltas.lock();
      try {
        processor.addListener(listener);
        for (T item : indexer.list()) {
          listener.add(new Notification.Add<>(item, true));
        }
      } finally {
        blockDeltas.unlock();
      }
      return listener;
    }
  }

  @Override
  public void removeEventHandler(ResourceEventHandlerRegistration registration) {
    synchronized (startedLock) {
      blockDeltas.lock();
      try {
        processor.removeListener(registration);
      } finally {
        blockDeltas.unlock();
      }
    }
  }

  @Override
  public void addIndexers(Map<String, IndexFunction<T>> indexers) {
    synchronized (startedLock) {
      if (started) {
        throw new IllegalStateException("informer for " + description + " has already started");
      }
      indexer.addIndexers(indexers);
    }
  }

  @Override
  public Indexer<T> getIndexer() {
    return indexer;
  }

  @Override
  public Store<T> getStore() {
    return indexer;
  }

  @Override
  public void setTransform(UnaryOperator<T> transform) {
    synchronized (startedLock) {
      if (started) {
        throw new IllegalStateException("informer for " + description + " has already started");
      }
      this.transform = transform;
    }
  }

  @Override
  public void start() {
    synchronized (startedLock) {
      if (stopped) {
        throw new IllegalStateException("informer for " + description + " has stopped; it cannot restart");
      }
      if (started) {
        log.warn("informer for {} already started", description);
        return;
      }
      String threadPrefix = "berth-informer[" + description + "]";
      DeltaFIFO<T> queue = new DeltaFIFO<>(indexer, transform);
      Reflector<T> newReflector = new Reflector<>(listerWatcher, queue, resyncCheckPeriod,
          processor::shouldResync, clock, random);
      handlerExecutor = newHandlerExecutor(threadPrefix + "-handler-");
      fifo = queue;
      reflector = newReflector;
      processor.start(handlerExecutor);
      reflectorThread = daemon(newReflector::run, threadPrefix + "-reflector");
      processingThread = daemon(this::processLoop, threadPrefix + "-processor");
      started = true;
      reflectorThread.start();
      processingThread.start();
    }
    startedLatch.countDown();
  }

  @Override
  public void run() {
    start();
    try {
      stoppedLatch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
    }
  }

  @Override
  public void stop() {
    synchronized (startedLock) {
      if (stopped) {
        return;
      }
      stopped = true;
      if (started) {
        reflector.stop();
        fifo.close();
        processingThread.interrupt();
        processor.stop();
        handlerExecutor.shutdown();
      }
    }
    startedLatch.countDown();
    stoppedLatch.countDown();
  }

  @Override
  public boolean isStarted() {
    return started;
  }

  @Override
  public boolean isStopped() {
    return stopped;
  }

  @Override
  public boolean hasSynced() {
    DeltaFIFO<T> queue = fifo;
    return queue != null && queue.hasSynced();
  }

  @Override
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!startedLatch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    DeltaFIFO<T> queue = fifo;
    if (queue == null) {
      return false; // stopped before starting
    }
    return queue.awaitSynced(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  @Override
  public boolean isWatching() {
    Reflector<T> current = reflector;
    return current != null && current.isWatching();
  }

  @Override
  public String lastSyncResourceVersion() {
    Reflector<T> current = reflector;
    return current == null ? "" : current.lastSyncResourceVersion();
  }

  @Override
  public String toString() {
    return "SharedIndexInformer[" + description + "]";
  }

  /** The listeners, for tests. */
  SharedProcessor<T> processor() {
    return processor;
  }

  private void processLoop() {
    DeltaFIFO<T> queue = fifo;
    while (true) {
      try {
        if (queue.pop(this::handleDeltas).isEmpty()) {
          return; // closed and drained
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.error("informer for {} failed to process deltas", description, e);
      }
    }
  }

  /*
   * Applies one key's deltas, oldest first, to the cache and notifies handlers (client-go's
   * processDeltas). Runs under the queue's lock; blockDeltas keeps handler registration out.
   * Added vs Updated is decided by the cache, not by the delta type: the CRUD mock's replay of
   * ADDED for a known object, a relist's REPLACED and a resync's SYNC all become updates.
   */
  private void handleDeltas(Deltas<T> deltas, boolean isInInitialList) {
    blockDeltas.lock();
    try {
      String key = deltas.key();
      for (Delta<T> delta : deltas.deltas()) {
        T obj = delta.object();
        switch (delta.type()) {
          case SYNC:
          case REPLACED:
          case ADDED:
          case UPDATED: {
            T old = indexer.put(key, obj);
            if (old == null) {
              processor.distribute(new Notification.Add<>(obj, isInInitialList), false);
            } else {
              boolean isSync = Cache.resourceVersion(old).equals(Cache.resourceVersion(obj));
              processor.distribute(new Notification.Update<>(old, obj), isSync);
            }
            break;
          }
          case DELETED:
            indexer.remove(key);
            processor.distribute(new Notification.Delete<>(obj, delta.finalStateUnknown()), false);
            break;
          default:
            throw new IllegalStateException("unknown delta type " + delta.type());
        }
      }
    } finally {
      blockDeltas.unlock();
    }
  }

  private static Thread daemon(Runnable body, String name) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  private static ExecutorService newHandlerExecutor(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
        runnable -> daemon(runnable, prefix + counter.incrementAndGet()));
  }
}
