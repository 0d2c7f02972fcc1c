package io.berth.embedded.server;

/**
 * Where one watch's events go: a WebSocket (fabric8) or a chunked HTTP response (kubectl, client-go). Both
 * implementations are thread-safe and never block: writes are queued on the connection's event loop.
 */
interface WatchSink {

  /** Sends one watch event (a JSON object {@code {"type":..,"object":..}}). */
  void send(byte[] event);

  /** Ends the watch from the server side. Idempotent. */
  void close();
}
