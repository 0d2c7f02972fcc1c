package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * One open watch: which objects it selects, where its events go and whether it wants bookmarks. Translates store
 * events into what this watcher sees: a change that moves an object into its selection is ADDED, out of it DELETED,
 * as kube-apiserver does for watches with selectors.
 *
 * <p>{@link #deliver} is called with the store lock held (events arrive in order); {@code closed} is atomic, the
 * rest is immutable after construction.
 */
final class ServerWatch {

  private final ResourceType type;
  private final String namespace;
  private final Predicate<StoredObject> filter;
  private final WatchSink sink;
  private final boolean bookmarks;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Runnable onClose;
  private final java.util.function.Function<StoredObject, byte[]> render;

  ServerWatch(ResourceType type, String namespace, Predicate<StoredObject> filter, WatchSink sink, boolean bookmarks,
      java.util.function.Function<StoredObject, byte[]> render, Runnable onClose) {
    this.render = render;
    this.type = type;
    this.namespace = namespace == null || namespace.isEmpty() ? null : namespace;
    this.filter = filter;
    this.sink = sink;
    this.bookmarks = bookmarks;
    this.onClose = onClose;
  }

  ResourceType type() {
    return type;
  }

  boolean wantsBookmarks() {
    return bookmarks;
  }

  boolean closed() {
    return closed.get();
  }

  private boolean selects(StoredObject o) {
    return o != null && (namespace == null || namespace.equals(o.namespace())) && filter.test(o);
  }

  /** Sends what this watcher sees of {@code event}, if anything. */
  void deliver(WatchEvent event) {
    deliver(event, new EventFrames(event.object()));
  }

  /**
   * Sends what this watcher sees of {@code event}, if anything, taking the JSON frames from {@code frames} (shared
   * by every watcher of this event) when this watch renders plain JSON.
   */
  void deliver(WatchEvent event, EventFrames frames) {
    if (closed.get() || event.object().type() != type) {
      return;
    }
    boolean now = selects(event.object());
    switch (event.type()) {
      case ADDED -> {
        if (now) {
          emit("ADDED", event.object(), frames);
        }
      }
      case MODIFIED -> {
        boolean before = selects(event.previous());
        if (now && before) {
          emit("MODIFIED", event.object(), frames);
        } else if (now) {
          emit("ADDED", event.object(), frames);
        } else if (before) {
          emit("DELETED", event.object(), frames);
        }
      }
      case DELETED -> {
        if (now || selects(event.previous())) {
          emit("DELETED", event.object(), frames);
        }
      }
      default -> throw new IllegalStateException("unknown event type " + event.type());
    }
  }

  private void emit(String eventType, StoredObject object, EventFrames frames) {
    if (render == WatchHub.JSON) {
      sink.send(frames.frame(eventType));
    } else {
      sink.send(WatchFrame.of(eventType, render.apply(object)));
    }
  }

  /** Sends a synthetic ADDED (initial state of a watch without a resourceVersion). */
  void sendInitial(StoredObject o) {
    if (selects(o)) {
      send("ADDED", render.apply(o));
    }
  }

  /** Sends a BOOKMARK at {@code rv}, if this watch asked for bookmarks. */
  void bookmark(long rv) {
    if (!bookmarks || closed.get()) {
      return;
    }
    String obj = "{\"kind\":\"" + type.kind() + "\",\"apiVersion\":\"" + type.apiVersion()
        + "\",\"metadata\":{\"resourceVersion\":\"" + rv + "\"}}";
    send("BOOKMARK", obj.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends an ERROR event carrying {@code status} (a metav1.Status) and ends the watch. */
  void fail(byte[] status) {
    send("ERROR", status);
    close();
  }

  private void send(String eventType, byte[] object) {
    sink.send(WatchFrame.of(eventType, object));
  }

  /** Ends the watch (server side or after the client went away). Idempotent. */
  void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        sink.close();
      } finally {
        onClose.run();
      }
    }
  }
}
