package io.berth.embedded.server;

import io.vertx.core.Context;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.http.HttpServerResponse;

/**
 * A watch streamed as newline-delimited JSON over a chunked HTTP response, as kube-apiserver serves kubectl and
 * client-go. Thread-safe: every write is handed to the response's own Vert.x context, which runs them in order.
 */
final class ChunkedHttpSink implements WatchSink {

  private final HttpServerResponse response;
  private final Context context;

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
    write(Buffer.buffer(event.length + 1).appendBytes(event).appendByte((byte) '\n'));
  }

  @Override
  public void send(WatchFrame frame) {
    // A view over the frame's shared bytes: no copy per watcher (each write owns its own ByteBuf wrapper).
    write(BufferInternal.buffer(Unpooled.wrappedBuffer(frame.line())));
  }

  private void write(Buffer chunk) {
    context.runOnContext(v -> {
      if (!response.ended() && !response.closed()) {
        response.write(chunk);
      }
    });
  }

  @Override
  public void close() {
    context.runOnContext(v -> {
      if (!response.ended() && !response.closed()) {
        response.end();
      }
    });
  }
}
