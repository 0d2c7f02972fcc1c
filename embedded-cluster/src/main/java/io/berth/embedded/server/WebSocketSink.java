package io.berth.embedded.server;

import io.fabric8.mockwebserver.http.WebSocket;
import io.vertx.core.Context;
import java.nio.charset.StandardCharsets;

/**
 * A watch delivered as WebSocket text messages, one event per message, as fabric8's client reads them.
 *
 * <p>Thread-safe and non-blocking: the mock transport's WebSocket waits for each write to complete when called
 * from outside Vert.x, which would stall a writer holding the store lock while that connection's event loop waits
 * for the same lock. So every send and close is handed to the connection's own context, which runs them in order.
 */
final class WebSocketSink implements WatchSink {

  private final WebSocket socket;
  private final Context context;

  /** Call on the WebSocket's event loop (from {@code onOpen}). */
  WebSocketSink(WebSocket socket, Context context) {
    this.socket = socket;
    this.context = context;
  }

  @Override
  public void send(byte[] event) {
    String text = new String(event, StandardCharsets.UTF_8);
    context.runOnContext(v -> socket.send(text));
  }

  @Override
  public void send(WatchFrame frame) {
    String text = frame.text();
    context.runOnContext(v -> socket.send(text));
  }

  @Override
  public void close() {
    context.runOnContext(v -> socket.close(1000, "watch closed"));
  }
}
