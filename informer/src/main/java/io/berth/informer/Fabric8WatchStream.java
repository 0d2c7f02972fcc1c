package io.berth.informer;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bridges one fabric8 watch to a {@link WatchStream}: fabric8 calls the {@link Watcher} methods on
 * its per-watch serial executor, which only enqueues; the reflector thread takes events in order.
 *
 * <p>fabric8 reports the end of a watch through {@code onClose}: {@code onClose()} after a local
 * close, {@code onClose(WatcherException)} otherwise. With the reconnect limit at 0 (see
 * {@link Fabric8ListerWatcher}) every remote end arrives there instead of being retried: a
 * server-side close or connection failure as "Exhausted reconnects" (no cause), an ERROR event
 * with status 410 as an exception for which {@code isHttpGone()} holds (fabric8 turns other ERROR
 * statuses into a retry, hence into "Exhausted reconnects" too), an undecodable event as an
 * exception with a cause or the raw message. The connection ending becomes CLOSED; 410 and
 * failures become ERROR.
 */
final class Fabric8WatchStream<T extends HasMetadata> implements WatchStream<T>, Watcher<T> {

  private static final Logger log = LoggerFactory.getLogger(Fabric8WatchStream.class);

  // thread-safe queue: fabric8's executor produces, the reflector thread consumes
  private final LinkedBlockingQueue<WatchEvent<T>> events = new LinkedBlockingQueue<>();
  private final String description;
  // written once by the thread that opened the watch, read by any thread closing it
  private volatile Watch watch;
  // set once a terminal event has been queued or consumed
  private volatile boolean ended;
  // confined to the consuming thread
  private boolean terminalConsumed;

  Fabric8WatchStream(String description) {
    this.description = description;
  }

  /** Attaches the fabric8 watch once it has started; closes it at once if the stream ended. */
  void attach(Watch started) {
    this.watch = started;
    if (ended) {
      started.close();
    }
  }

  @Override
  public void eventReceived(Action action, T resource) {
    switch (action) {
      case ADDED:
        events.add(WatchEvent.of(WatchEvent.Type.ADDED, resource));
        break;
      case MODIFIED:
        events.add(WatchEvent.of(WatchEvent.Type.MODIFIED, resource));
        break;
      case DELETED:
        events.add(WatchEvent.of(WatchEvent.Type.DELETED, resource));
        break;
      case BOOKMARK:
        events.add(WatchEvent.bookmark(Cache.resourceVersion(resource)));
        break;
      default:
        // fabric8 handles ERROR statuses itself and reports them through onClose
        log.warn("{}: ignoring unexpected watch action {}", description, action);
    }
  }

  @Override
  public void onClose(WatcherException cause) {
    if (cause.isHttpGone()) {
      end(WatchEvent.error(cause.asClientException()));
    } else if (cause.getCause() == null && cause.getRawWatchMessage().isEmpty()) {
      // "Exhausted reconnects": the connection ended (server timeout, server close, network
      // failure) and, with the reconnect limit at 0, fabric8 hands it to us.
      log.debug("{}: watch connection ended: {}", description, cause.getMessage());
      end(WatchEvent.closed());
    } else {
      end(WatchEvent.error(cause));
    }
  }

  @Override
  public void onClose() {
    end(WatchEvent.closed());
  }

  /** fabric8 must not reconnect behind the reflector's back. */
  @Override
  public boolean reconnecting() {
    return false;
  }

  private void end(WatchEvent<T> terminal) {
    ended = true;
    events.add(terminal);
  }

  @Override
  public WatchEvent<T> next() throws InterruptedException {
    if (terminalConsumed) {
      return WatchEvent.closed();
    }
    WatchEvent<T> event = events.take();
    if (event.type().isTerminal()) {
      terminalConsumed = true;
      ended = true;
    }
    return event;
  }

  @Override
  public boolean isOpen() {
    return !ended;
  }

  @Override
  public void close() {
    end(WatchEvent.closed());
    Watch current = watch;
    if (current != null) {
      current.close();
    }
  }
}
