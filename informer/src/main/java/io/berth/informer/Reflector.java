package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ReflectorStore} in step with one collection on the API server (client-go's
 * {@code Reflector}): list, then watch from the list's resourceVersion, and start over when the
 * watch cannot continue. The reflector alone decides when to relist and rewatch; its
 * {@link ListerWatcher} never reconnects by itself.
 *
 * <p>The loop, as upstream:
 *
 * <ol>
 *   <li>List, paginated ({@code limit} 500 and {@code continue}). The first list asks for
 *       resourceVersion {@code "0"} (any cached state will do); a relist asks for the last synced
 *       resourceVersion, unpaginated so a watch cache can serve it; after a 410 the resourceVersion
 *       is marked unusable and the list asks for {@code ""} (a consistent read). An expired
 *       continue token falls back to one full list. The result replaces the store's content.
 *   <li>Watch from the last synced resourceVersion, with bookmarks and a server timeout random in
 *       [5, 10) minutes. ADDED/MODIFIED/DELETED go to the store; every event, bookmarks included,
 *       advances {@link #lastSyncResourceVersion()}. When the server ends the watch normally, watch
 *       again from there without relisting.
 *   <li>A watch that fails to start because the server refused the connection or throttled (429)
 *       is retried after a backoff. A 410 (HTTP status at watch start, or an ERROR event carrying a
 *       410 status) marks the resourceVersion unusable (this follows Berth's issue; current
 *       client-go first retries the list at the old resourceVersion). Any other failure, and a
 *       watch that ends within a second without a single event, ends the round.
 *   <li>Between rounds, and before retrying a watch, wait for an exponential backoff with jitter:
 *       800 ms doubling to a 30 s cap, each delay stretched by up to 100 %, reset after 2 minutes
 *       without failures.
 * </ol>
 *
 * <p>With a resync period, a separate thread calls {@link ReflectorStore#resync()} that often
 * (after the first successful list), if {@code shouldResync} agrees.
 *
 * <p>Threads: {@link #run()} occupies the calling thread until {@link #stop()}; it is the only
 * writer of the store apart from the resync thread. {@link #stop()}, {@link #isWatching()} and
 * {@link #lastSyncResourceVersion()} may be called from any thread.
 */
public final class Reflector<T extends HasMetadata> {

  private static final Logger log = LoggerFactory.getLogger(Reflector.class);

  /** The watch timeout is random in [MIN_WATCH_TIMEOUT, 2 * MIN_WATCH_TIMEOUT). */
  public static final Duration MIN_WATCH_TIMEOUT = Duration.ofMinutes(5);

  /** A watch that ends sooner than this without events counts as a failure. */
  static final Duration SHORT_WATCH = Duration.ofSeconds(1);

  private final ListerWatcher<T> listerWatcher;
  private final ReflectorStore<T> store;
  private final Duration resyncPeriod;
  private final BooleanSupplier shouldResync;
  private final Clock clock;
  private final DoubleSupplier random;
  private final String name;
  // confined to the run thread
  private final Backoff backoff;
  // confined to the run thread: whether the first "0" list came back in several pages
  private boolean paginatedResult;

  // written by the run thread only
  private volatile String lastSyncResourceVersion = "";
  // written by the run thread only
  private volatile boolean lastSyncResourceVersionUnavailable;
  // written by the run thread only; the watch being consumed, if any
  private volatile WatchStream<T> currentWatch;
  private volatile boolean stopped;
  // guarded by this; the thread inside run(), null before and after
  private Thread runThread;
  // guarded by this
  private Thread resyncThread;

  /**
   * A reflector on the system clock.
   *
   * @param resyncPeriod how often to resync the store; zero for never
   */
  public Reflector(ListerWatcher<T> listerWatcher, ReflectorStore<T> store, Duration resyncPeriod) {
    this(listerWatcher, store, resyncPeriod, () -> true, Clock.SYSTEM,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param shouldResync consulted on every resync tick; the store resyncs only if it says so
   * @param random uniform in [0, 1), for backoff jitter and watch timeouts
   */
  Reflector(ListerWatcher<T> listerWatcher, ReflectorStore<T> store, Duration resyncPeriod,
      BooleanSupplier shouldResync, Clock clock, DoubleSupplier random) {
    this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
    this.store = Objects.requireNonNull(store, "store");
    this.resyncPeriod = Objects.requireNonNull(resyncPeriod, "resyncPeriod");
    if (resyncPeriod.isNegative()) {
      throw new IllegalArgumentException("negative resync period " + resyncPeriod);
    }
    this.shouldResync = Objects.requireNonNull(shouldResync, "shouldResync");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
    this.name = listerWatcher.description();
    this.backoff = Backoff.reflectorDefault(clock, random);
  }

  /**
   * Lists and watches until {@link #stop()}, on the calling thread. Returns once stopped; the
   * interrupt {@link #stop()} uses to wake this thread is cleared before returning.
   *
   * @throws IllegalStateException if the reflector is already running
   *     (a reflector runs once: after it stopped, run returns at once)
   */
  public void run() {
    synchronized (this) {
      if (runThread != null) {
        throw new IllegalStateException("reflector already running: " + name);
      }
      if (stopped) {
        return;
      }
      runThread = Thread.currentThread();
      if (!resyncPeriod.isZero()) {
        resyncThread = new Thread(this::resyncLoop, Thread.currentThread().getName() + "-resync");
        resyncThread.setDaemon(true);
        resyncThread.start();
      }
    }
    log.debug("starting reflector for {} (resync {})", name, resyncPeriod);
    try {
      while (!stopped) {
        try {
          listAndWatch();
        } catch (InterruptedException e) {
          break;
        } catch (RuntimeException e) {
          if (stopped) {
            break;
          }
          logWatchError(e);
        }
        if (stopped) {
          break;
        }
        clock.sleep(backoff.next());
      }
    } catch (InterruptedException e) {
      // stop() woke us while backing off
    } finally {
      stopped = true;
      currentWatch = null;
      synchronized (this) {
        // after this, stop() no longer interrupts the calling thread
        runThread = null;
        if (resyncThread != null) {
          resyncThread.interrupt();
        }
      }
      Thread.interrupted();
      log.debug("stopped reflector for {}", name);
    }
  }

  /** Stops the reflector: ends the current watch or list and wakes the run thread. Idempotent. */
  public void stop() {
    stopped = true;
    WatchStream<T> watch = currentWatch;
    if (watch != null) {
      watch.close();
    }
    synchronized (this) {
      if (runThread != null) {
        runThread.interrupt();
      }
      if (resyncThread != null) {
        resyncThread.interrupt();
      }
    }
  }

  /** Whether {@link #stop()} was called. */
  public boolean isStopped() {
    return stopped;
  }

  /**
   * The resourceVersion of the last list or watch event (bookmarks included) applied to the store;
   * {@code ""} before the first list. Not synchronized with the store's content.
   */
  public String lastSyncResourceVersion() {
    return lastSyncResourceVersion;
  }

  /**
   * Whether a watch is open right now: a health signal. A reflector that has listed but whose
   * watch is down (between rounds, backing off, relisting) is not watching.
   */
  public boolean isWatching() {
    WatchStream<T> watch = currentWatch;
    return watch != null && watch.isOpen();
  }

  /** Whether the last resourceVersion was found expired, so the next list asks for {@code ""}. */
  boolean isLastSyncResourceVersionUnavailable() {
    return lastSyncResourceVersionUnavailable;
  }

  private void listAndWatch() throws InterruptedException {
    list();
    watch();
  }

  private void list() throws InterruptedException {
    String resourceVersion = relistResourceVersion();
    long pageSize;
    if (paginatedResult) {
      // the server paginated a "0" list before: no watch cache for this resource, keep paging
      pageSize = Pager.DEFAULT_PAGE_SIZE;
    } else if (!resourceVersion.isEmpty() && !resourceVersion.equals("0")) {
      // let a watch cache serve the relist: it only does so for unpaginated requests
      pageSize = 0;
    } else {
      pageSize = Pager.DEFAULT_PAGE_SIZE;
    }
    Pager.Result<T> result;
    try {
      result = Pager.list(listerWatcher, resourceVersion, pageSize);
    } catch (RuntimeException e) {
      checkStopped();
      if (!ApiErrors.isExpired(e) && !ApiErrors.isTooLargeResourceVersion(e)) {
        throw new ReflectorException("failed to list " + name, e);
      }
      // The resourceVersion is unusable: retry at once with a consistent read.
      lastSyncResourceVersionUnavailable = true;
      try {
        result = Pager.list(listerWatcher, relistResourceVersion(), pageSize);
      } catch (RuntimeException retry) {
        checkStopped();
        throw new ReflectorException("failed to list " + name, retry);
      }
    }
    checkStopped();
    if (resourceVersion.equals("0") && result.paginated()) {
      paginatedResult = true;
    }
    lastSyncResourceVersionUnavailable = false;
    store.replace(result.items(), result.resourceVersion());
    lastSyncResourceVersion = result.resourceVersion();
    log.debug("listed {} items of {} at resourceVersion {}", result.items().size(), name,
        result.resourceVersion());
  }

  private void watch() throws InterruptedException {
    while (true) {
      checkStopped();
      long start = clock.nanoTime();
      WatchStream<T> stream;
      try {
        stream = listerWatcher.watch(new WatchRequest(lastSyncResourceVersion, watchTimeoutSeconds()));
      } catch (RuntimeException e) {
        checkStopped();
        if (ApiErrors.isWatchErrorRetriable(e)) {
          log.debug("watch of {} refused ({}), backing off", name, e.getMessage());
          clock.sleep(backoff.next());
          continue;
        }
        if (ApiErrors.isExpired(e) || ApiErrors.isTooLargeResourceVersion(e)) {
          lastSyncResourceVersionUnavailable = true;
        }
        throw new ReflectorException("failed to watch " + name, e);
      }
      Throwable error;
      currentWatch = stream;
      try {
        if (stopped) {
          stream.close();
        }
        error = handleWatch(stream, start);
      } finally {
        currentWatch = null;
        stream.close();
      }
      checkStopped();
      if (error == null) {
        continue;
      }
      if (ApiErrors.isExpired(error) || ApiErrors.isTooLargeResourceVersion(error)) {
        lastSyncResourceVersionUnavailable = true;
        log.debug("watch of {} closed with: {}", name, error.getMessage());
        return;
      }
      if (ApiErrors.isTooManyRequests(error)) {
        log.debug("watch of {} returned 429, backing off", name);
        clock.sleep(backoff.next());
        continue;
      }
      log.warn("watch of {} ended with: {}", name, String.valueOf(error));
      return;
    }
  }

  /** Applies watch events until the stream ends; returns the error that ended it, or null. */
  private Throwable handleWatch(WatchStream<T> stream, long startNanos) throws InterruptedException {
    int eventCount = 0;
    while (true) {
      WatchEvent<T> event = stream.next();
      if (stopped) {
        return null;
      }
      switch (event.type()) {
        case ADDED:
        case MODIFIED:
        case DELETED:
          apply(event);
          break;
        case BOOKMARK:
          // a bookmark only moves the resourceVersion
          break;
        case ERROR:
          return event.cause().orElseThrow();
        case CLOSED:
          long elapsed = clock.nanoTime() - startNanos;
          if (eventCount == 0 && elapsed < SHORT_WATCH.toNanos()) {
            return new ReflectorException("very short watch of " + name
                + ": unexpected watch close, lasted less than a second and no items received", null);
          }
          log.debug("watch of {} closed after {} events", name, eventCount);
          return null;
        default:
          throw new IllegalStateException("unknown watch event type " + event.type());
      }
      lastSyncResourceVersion = event.resourceVersion();
      eventCount++;
    }
  }

  private void apply(WatchEvent<T> event) {
    T obj = event.object().orElseThrow();
    try {
      if (event.type() == WatchEvent.Type.ADDED) {
        store.add(obj);
      } else if (event.type() == WatchEvent.Type.MODIFIED) {
        store.update(obj);
      } else {
        store.delete(obj);
      }
    } catch (RuntimeException e) {
      // As upstream: report and go on with the next event rather than drop the watch.
      log.error("{}: unable to apply watch event {} to the store", name, event, e);
    }
  }

  /** "0" for the first list, "" after an expiry, else the last synced resourceVersion. */
  private String relistResourceVersion() {
    if (lastSyncResourceVersionUnavailable) {
      return "";
    }
    String last = lastSyncResourceVersion;
    return last.isEmpty() ? "0" : last;
  }

  private long watchTimeoutSeconds() {
    return (long) (MIN_WATCH_TIMEOUT.toSeconds() * (random.getAsDouble() + 1.0));
  }

  private void resyncLoop() {
    while (!stopped) {
      try {
        clock.sleep(resyncPeriod);
      } catch (InterruptedException e) {
        return;
      }
      if (stopped) {
        return;
      }
      if (lastSyncResourceVersion.isEmpty()) {
        continue; // nothing listed yet
      }
      try {
        if (shouldResync.getAsBoolean()) {
          log.debug("resyncing {}", name);
          store.resync();
        }
      } catch (RuntimeException e) {
        log.error("resync of {} failed", name, e);
      }
    }
  }

  private void checkStopped() throws InterruptedException {
    if (stopped) {
      throw new InterruptedException("reflector stopped");
    }
  }

  private void logWatchError(RuntimeException e) {
    Throwable cause = e.getCause() == null ? e : e.getCause();
    if (ApiErrors.isExpired(cause)) {
      log.debug("{}: {}", e.getMessage(), cause.getMessage());
    } else {
      log.warn("{}: {}", e.getMessage(), String.valueOf(cause));
    }
  }

  /** A failed list or watch round; the run loop logs it and backs off. */
  static final class ReflectorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ReflectorException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
