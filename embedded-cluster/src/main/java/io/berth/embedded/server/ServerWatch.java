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

  private static final byte[] SUFFIX = "}".getBytes(StandardCharsets.UTF_8);

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
    if (closed.get() || event.object().type() != type) {
      return;
    }
    boolean now = selects(event.object());
    switch (event.type()) {
      case ADDED -> {
        if (now) {
          send("ADDED", render.apply(event.object()));
        }
      }
      case MODIFIED -> {
        boolean before = selects(event.previous());
        if (now && before) {
          send("MODIFIED", render.apply(event.object()));
        } else if (now) {
          send("ADDED", render.apply(event.object()));
        } else if (before) {
          send("DELETED", render.apply(event.object()));
        }
      }
      case DELETED -> {
        if (now || selects(event.previous())) {
          send("DELETED", render.apply(event.object()));
        }
      }
      default -> throw new IllegalStateException("unknown event type " + event.type());
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
    byte[] prefix = ("{\"type\":\"" + eventType + "\",\"object\":").getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[prefix.length + object.length + SUFFIX.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(object, 0, out, prefix.length, object.length);
    System.arraycopy(SUFFIX, 0, out, prefix.length + object.length, SUFFIX.length);
    sink.send(out);
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
