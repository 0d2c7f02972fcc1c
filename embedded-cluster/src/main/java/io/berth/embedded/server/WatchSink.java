package io.berth.embedded.server;

/**
 * Where one watch's events go: a WebSocket (fabric8) or a chunked HTTP response (kubectl, client-go). Both
 * implementations are thread-safe and never block: writes are queued on the connection's event loop.
 */
interface WatchSink {

  /** Sends one watch event (a JSON object {@code {"type":..,"object":..}}). */
  void send(byte[] event);

  /** Sends one watch event encoded once for every watcher; the default sends its JSON bytes. */
  default void send(WatchFrame frame) {
    send(frame.bytes());
  }

  /** Ends the watch from the server side. Idempotent. */
  void close();
}
