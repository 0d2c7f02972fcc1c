package io.berth.embedded.server;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.time.Duration;

/**
 * One answer of the dispatcher: status code, content type and body, an optional delay before the body (latency
 * fault injection), or a WebSocket upgrade (watches over WebSockets, served through the fabric8 mock's transport).
 * Immutable; the body array is shared and must not be changed.
 *
 * @param code the HTTP status
 * @param contentType the Content-Type header
 * @param body the body bytes
 * @param bodyDelay how long to hold the body back; zero for none
 * @param webSocket the listener of a WebSocket upgrade, or null for a plain response
 */
record ApiResponse(int code, String contentType, byte[] body, Duration bodyDelay, WebSocketListener webSocket) {

  /** A plain response without delay. */
  static ApiResponse of(int code, String contentType, byte[] body) {
    return new ApiResponse(code, contentType, body, Duration.ZERO, null);
  }

  /** A WebSocket upgrade handled by {@code listener}. */
  static ApiResponse upgrade(WebSocketListener listener) {
    return new ApiResponse(101, null, new byte[0], Duration.ZERO, listener);
  }

  /** This response with its body held back for {@code delay}. */
  ApiResponse delayed(Duration delay) {
    return new ApiResponse(code, contentType, body, delay, webSocket);
  }

  /** The same answer as the fabric8 mock transport's response. */
  MockResponse toMock() {
    if (webSocket != null) {
      return new MockResponse().withWebSocketUpgrade(webSocket);
    }
    MockResponse r = new MockResponse().setResponseCode(code).setHeader("Content-Type", contentType).setBody(body);
    return bodyDelay.isZero() ? r : r.setBodyDelay(bodyDelay);
  }
}
