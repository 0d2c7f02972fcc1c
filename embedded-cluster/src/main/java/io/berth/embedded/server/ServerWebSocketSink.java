package io.berth.embedded.server;

import io.netty.buffer.Unpooled;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.websocket.WebSocketFrameImpl;

/**
 * A watch delivered over a WebSocket the transport upgraded itself, one event per text message, as fabric8's
 * client reads them. Each message is written straight from the event's shared JSON bytes (a text frame over a
 * view of them): no decoding to a {@code String} and no encoding back per watcher.
 *
 * <p>Thread-safe and non-blocking: Vert.x queues a write made off the connection's event loop and writes the queue
 * there in order (flushing once per drained batch), so a writer holding the store lock never waits for the
 * socket, and events leave in the order they were sent.
 */
final class ServerWebSocketSink implements WatchSink {

  private final ServerWebSocket socket;

  ServerWebSocketSink(ServerWebSocket socket) {
    this.socket = socket;
  }

  @Override
  public void send(byte[] event) {
    socket.writeFrame(new WebSocketFrameImpl(WebSocketFrameType.TEXT, Unpooled.wrappedBuffer(event), true));
  }

  @Override
  public void send(WatchFrame frame) {
    send(frame.bytes());
  }

  @Override
  public void close() {
    if (!socket.isClosed()) {
      socket.close((short) 1000, "watch closed");
    }
  }
}
