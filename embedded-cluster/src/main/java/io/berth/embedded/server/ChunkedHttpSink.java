package io.berth.embedded.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.Context;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A watch streamed as newline-delimited JSON over a chunked HTTP response, as kube-apiserver serves kubectl and
 * client-go. Events are written in batches: {@link #send} queues the event's line and schedules one drain on the
 * response's Vert.x context unless one is already scheduled; the drain writes every queued line, in order, as one
 * chunk over the shared bytes (no copy). At a high event rate a watcher then costs one task, one wake-up of its event
 * loop and one socket write per batch instead of per event; the byte stream is the same (clients split it at the
 * newlines, not at chunk boundaries).
 *
 * <p>Thread-safe: {@link #send} and {@link #close} may be called from any thread (events arrive from writers holding
 * the store lock, so in resourceVersion order); {@code pending} is a lock-free FIFO queue, {@code drainScheduled}
 * an atomic flag, and the response is touched only on its context, where the drains and the close run one after
 * another, in the order they were scheduled.
 */
final class ChunkedHttpSink implements WatchSink {

  /** At most this many events go into one chunk; a longer queue is written as several chunks in a row. */
  static final int MAX_BATCH = 256;

  private final HttpServerResponse response;
  private final Context context;
  // lines sent and not yet written, oldest first
  private final ConcurrentLinkedQueue<byte[]> pending = new ConcurrentLinkedQueue<>();
  // set when a drain is scheduled, cleared by that drain before it takes lines from pending
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  /** Starts the response (200, chunked JSON); call on the request's event loop. */
  ChunkedHttpSink(HttpServerResponse response, Context context) {
    this.response = response;
    this.context = context;
    response.setStatusCode(200);
    response.setChunked(true);
    response.putHeader("Content-Type", "application/json");
    response.putHeader("Cache-Control", "no-cache, private");
    response.writeHead();
  }

  @Override
  public void send(byte[] event) {
    byte[] line = new byte[event.length + 1];
    System.arraycopy(event, 0, line, 0, event.length);
    line[event.length] = '\n';
    enqueue(line);
  }

  @Override
  public void send(WatchFrame frame) {
    // the frame's shared line: every watcher's chunk is a view over the same bytes
    enqueue(frame.line());
  }

  private void enqueue(byte[] line) {
    pending.add(line);
    if (drainScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> drain());
    }
  }

  // on the context: writes everything queued so far
  private void drain() {
    // cleared first: a line queued from now on schedules another drain (which may find nothing left)
    drainScheduled.set(false);
    byte[][] batch = new byte[MAX_BATCH][];
    while (true) {
      int n = 0;
      byte[] line;
      while (n < MAX_BATCH && (line = pending.poll()) != null) {
        batch[n++] = line;
      }
      if (n == 0) {
        return;
      }
      if (response.ended() || response.closed()) {
        pending.clear();
        return;
      }
      ByteBuf chunk = n == 1 ? Unpooled.wrappedBuffer(batch[0])
          : Unpooled.wrappedBuffer(n, java.util.Arrays.copyOf(batch, n));
      response.write(BufferInternal.buffer(chunk));
      if (n < MAX_BATCH) {
        return;
      }
    }
  }

  @Override
  public void close() {
    context.runOnContext(v -> {
      drain();
      if (!response.ended() && !response.closed()) {
        response.end();
      }
    });
  }
}
