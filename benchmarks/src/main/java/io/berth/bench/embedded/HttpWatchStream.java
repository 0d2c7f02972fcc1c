package io.berth.bench.embedded;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A watcher as a load generator runs one: a plain HTTP watch ({@code GET ...?watch=true&resourceVersion=N},
 * newline-delimited JSON over a chunked response, as kube-apiserver serves client-go and kubectl) that reads of
 * each event only its {@code type} and {@code metadata.resourceVersion} ({@link WatchEventHead}), checks that the
 * resourceVersions strictly increase, counts the ADDED events and counts {@code caughtUp} down once it has seen
 * {@code expectedAdded} of them. An ERROR event, an event out of order, a malformed line or the stream ending
 * early is recorded as the watcher's failure ({@link #failure}) and releases {@code caughtUp}, so a run cannot pass
 * on a broken stream.
 *
 * <p>Thread confinement: the stream's buffer and last resourceVersion are touched only by the Vert.x event loop of
 * its connection (the response handler); the count and the failure are atomics read by the harness thread.
 */
final class HttpWatchStream {

  private final int expectedAdded;
  private final CountDownLatch caughtUp;
  private final AtomicInteger added = new AtomicInteger();
  private final AtomicReference<String> failure = new AtomicReference<>();
  private volatile HttpClientResponse response;
  // confined to the connection's event loop: the bytes of an event not yet ended by '\n', and the last version
  private byte[] pending = new byte[16 * 1024];
  private int pendingLength;
  private long lastResourceVersion;

  private HttpWatchStream(int expectedAdded, CountDownLatch caughtUp, long fromResourceVersion) {
    this.expectedAdded = expectedAdded;
    this.caughtUp = caughtUp;
    this.lastResourceVersion = fromResourceVersion;
  }

  /**
   * Opens a watch of the pods of {@code namespace} after {@code resourceVersion} through {@code http} (the server
   * at 127.0.0.1:{@code port}) and waits until the server has answered its head.
   */
  static HttpWatchStream open(HttpClient http, int port, String namespace, String resourceVersion,
      int expectedAdded, CountDownLatch caughtUp) throws Exception {
    HttpWatchStream stream = new HttpWatchStream(expectedAdded, caughtUp, Long.parseLong(resourceVersion));
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
        .setURI("/api/v1/namespaces/" + namespace + "/pods?watch=true&resourceVersion=" + resourceVersion)
        .putHeader("Accept", "application/json");
    // the handlers are set on the event loop as the head arrives, before any event can be delivered
    HttpClientResponse response = http.request(options).compose(r -> r.send()).map(r -> {
      if (r.statusCode() == 200) {
        r.handler(stream::onChunk);
        r.exceptionHandler(e -> stream.fail("the watch failed: " + e));
        r.endHandler(v -> {
          if (stream.added.get() < expectedAdded) {
            stream.fail("the watch ended after " + stream.added.get() + " ADDED events");
          }
        });
      }
      return r;
    }).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    if (response.statusCode() != 200) {
      throw new IllegalStateException("the watch answered " + response.statusCode());
    }
    stream.response = response;
    return stream;
  }

  /** How many ADDED events the watcher has seen. */
  int added() {
    return added.get();
  }

  /** Why the stream failed, or null. */
  String failure() {
    return failure.get();
  }

  /** Ends the watch (closes its connection). */
  void close() {
    HttpClientResponse r = response;
    if (r != null) {
      r.request().connection().close();
    }
  }

  private void onChunk(Buffer chunk) {
    byte[] bytes = chunk.getBytes();
    int start = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      if (pendingLength == 0) {
        onEvent(bytes, start, i - start);
      } else {
        append(bytes, start, i - start);
        onEvent(pending, 0, pendingLength);
        pendingLength = 0;
      }
      start = i + 1;
    }
    if (start < bytes.length) {
      append(bytes, start, bytes.length - start);
    }
  }

  private void append(byte[] bytes, int from, int length) {
    if (pendingLength + length > pending.length) {
      pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + length));
    }
    System.arraycopy(bytes, from, pending, pendingLength, length);
    pendingLength += length;
  }

  private void onEvent(byte[] bytes, int offset, int length) {
    if (length == 0 || failure.get() != null) {
      return;
    }
    WatchEventHead head;
    try {
      head = WatchEventHead.ofEvent(bytes, offset, length);
    } catch (RuntimeException e) {
      fail("a malformed watch event: " + e.getMessage());
      return;
    }
    if (head.type() == null || head.resourceVersion() == null || "ERROR".equals(head.type())) {
      fail("an unexpected watch event: " + new String(bytes, offset, Math.min(length, 300),
          java.nio.charset.StandardCharsets.UTF_8));
      return;
    }
    long rv = Long.parseLong(head.resourceVersion());
    if (rv <= lastResourceVersion) {
      fail("resourceVersion " + rv + " after " + lastResourceVersion + ": out of order");
      return;
    }
    lastResourceVersion = rv;
    if ("ADDED".equals(head.type()) && added.incrementAndGet() == expectedAdded) {
      caughtUp.countDown();
    }
  }

  private void fail(String why) {
    // released once per watcher: not again when it had already caught up
    if (failure.compareAndSet(null, why) && added.get() < expectedAdded) {
      caughtUp.countDown();
    }
  }
}
