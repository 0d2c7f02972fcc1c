package io.berth.embedded.server;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every open watch, fed from the store's event stream. Opening a watch replays, under the store's read lock, either
 * the current objects as synthetic ADDED events (no resourceVersion, or "0") or exactly the history after the given
 * resourceVersion, then registers the watch before any later write can happen, so no event is lost or repeated.
 * A resourceVersion the history no longer reaches gets an ERROR event with a 410 Expired Status. Bookmarks go out
 * every {@code bookmarkInterval} to watches that asked for them; watches end after their timeout.
 *
 * <p>Thread-safe: {@code watches} is copy-on-write; delivery happens on writing threads under the store lock, and
 * bookmarks and timeouts on the hub's scheduler thread.
 */
public final class WatchHub implements StoreListener {

  private static final Logger LOG = LoggerFactory.getLogger(WatchHub.class);

  /** What a client asked to watch. */
  public record WatchRequest(ResourceType type, String namespace, Predicate<StoredObject> filter,
      String resourceVersion, boolean allowBookmarks, Optional<Duration> timeout,
      java.util.function.Function<StoredObject, byte[]> render) {
  }

  /** The plain JSON rendering of watched objects; watches using it share each event's encoded frames. */
  public static final java.util.function.Function<StoredObject, byte[]> JSON = StoredObject::json;

  private final ObjectStore store;
  private final List<ServerWatch> watches = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService scheduler;
  private final Duration defaultTimeout;

  public WatchHub(ObjectStore store, Duration bookmarkInterval, Duration defaultTimeout) {
    this.store = store;
    this.defaultTimeout = defaultTimeout;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "embedded-apiserver-watch-timer");
      t.setDaemon(true);
      return t;
    });
    long every = Math.max(1, bookmarkInterval.toMillis());
    scheduler.scheduleAtFixedRate(this::sendBookmarks, every, every, TimeUnit.MILLISECONDS);
    store.addListener(this);
  }

  /**
   * Opens a watch: validates the request, replays and registers it. The returned watch must be closed when the
   * client goes away.
   */
  ServerWatch open(WatchRequest request, WatchSink sink) {
    long fromRv = parseResourceVersion(request);
    ServerWatch[] holder = new ServerWatch[1];
    java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<?>> timer =
        new java.util.concurrent.atomic.AtomicReference<>();
    ServerWatch watch = new ServerWatch(request.type(), request.namespace(), request.filter(), sink,
        request.allowBookmarks(), request.render(), () -> {
          watches.remove(holder[0]);
          java.util.concurrent.ScheduledFuture<?> t = timer.get();
          if (t != null) {
            t.cancel(false);
          }
        });
    holder[0] = watch;
    store.read(() -> {
      if (fromRv < 0) {
        for (StoredObject o : store.list(request.type(), request.namespace(), request.filter()).items()) {
          watch.sendInitial(o);
        }
      } else {
        Optional<List<WatchEvent>> missed = store.eventsAfter(request.type(), fromRv);
        if (missed.isEmpty()) {
          watch.fail(Responses.statusBytes(ApiException.gone(
              "too old resource version: " + fromRv + " (" + store.resourceVersion() + ")")));
          return null;
        }
        missed.get().forEach(watch::deliver);
      }
      watches.add(watch);
      return null;
    });
    Duration timeout = request.timeout().orElse(defaultTimeout);
    if (!watch.closed()) {
      timer.set(scheduler.schedule(() -> {
        store.read(() -> {
          watch.bookmark(store.resourceVersion());
          return null;
        });
        watch.close();
      }, timeout.toMillis(), TimeUnit.MILLISECONDS));
      if (watch.closed()) {
        timer.get().cancel(false);
      }
    }
    return watch;
  }

  /** -1 for "start from the current state", else the version to resume after; 400 when it is not a version. */
  static long parseResourceVersion(WatchRequest request) {
    String rv = request.resourceVersion();
    if (rv == null || rv.isEmpty() || rv.equals("0")) {
      return -1;
    }
    try {
      long v = Long.parseLong(rv);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("resourceVersion: Invalid value: \"" + rv + "\": must be a non-negative integer");
    }
  }

  @Override
  public void onEvent(WatchEvent event) {
    EventFrames frames = new EventFrames(event.object());
    for (ServerWatch w : watches) {
      if (w.type() == event.object().type()) {
        try {
          w.deliver(event, frames);
        } catch (RuntimeException e) {
          LOG.warn("dropping watch on {} after a delivery failure: {}", w.type().resource(), e.toString());
          w.close();
        }
      }
    }
  }

  private void sendBookmarks() {
    try {
      store.read(() -> {
        long rv = store.resourceVersion();
        for (ServerWatch w : watches) {
          if (w.wantsBookmarks()) {
            w.bookmark(rv);
          }
        }
        return null;
      });
    } catch (RuntimeException e) {
      LOG.warn("bookmark round failed", e);
    }
  }

  /** Ends every open watch now (fault injection: "drop all watches"). Clients see their connection close. */
  public int closeAll() {
    List<ServerWatch> open = List.copyOf(watches);
    open.forEach(ServerWatch::close);
    return open.size();
  }

  /** How many watches are open. */
  public int openCount() {
    return watches.size();
  }

  /** Stops the timer thread and ends every watch. */
  public void shutdown() {
    store.removeListener(this);
    closeAll();
    scheduler.shutdownNow();
  }
}
