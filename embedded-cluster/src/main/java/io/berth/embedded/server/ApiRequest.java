package io.berth.embedded.server;

import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.function.UnaryOperator;

/**
 * One HTTP request as the dispatcher reads it: method, URI (path and query), headers by name and the whole body.
 * Built by the transport straight from Vert.x's request (or, for WebSocket upgrades, from the fabric8 mock's
 * {@code RecordedRequest}). Immutable; the body array is owned by the request and never changed.
 *
 * @param method the HTTP method, upper case
 * @param uri the request URI as sent (path and optional query string)
 * @param headers header values by name (case-insensitive), null when absent
 * @param body the body; empty when the request had none
 */
record ApiRequest(String method, String uri, UnaryOperator<String> headers, byte[] body) {

  private static final byte[] EMPTY = new byte[0];

  ApiRequest {
    body = body == null ? EMPTY : body;
  }

  /** The value of header {@code name}, or null. */
  String header(String name) {
    return headers.apply(name);
  }

  /** Adapts the mock transport's request (WebSocket upgrades). */
  static ApiRequest of(RecordedRequest request) {
    io.fabric8.mockwebserver.http.Buffer body = request.getBody();
    return new ApiRequest(request.getMethod(), request.getPath(), request::getHeader,
        body == null ? EMPTY : body.getBytes());
  }
}
