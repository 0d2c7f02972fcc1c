package io.berth.embedded.server;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxThread;
import io.vertx.core.internal.VertxBootstrap;
import io.vertx.core.spi.VertxThreadFactory;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/WebSocket transport of the embedded API server, over plain HTTP or TLS (with a
 * {@link ServingCertificate}), on a Vert.x HTTP server. Plain requests are served by our own handler: the body is
 * read into one array, the dispatcher answers with an {@link ApiResponse} and its bytes are written as one Vert.x
 * buffer, on the connection's event loop, without the fabric8 mock's {@code RecordedRequest}/{@code MockResponse}
 * conversions. Watches over a WebSocket upgrade (fabric8's) are upgraded here too and written as text frames straight
 * from each event's shared bytes ({@link ServerWebSocketSink}); other WebSocket upgrades go through the mock web
 * server's Vert.x handler. A watch requested without a WebSocket upgrade (kubectl, client-go) is streamed over
 * chunked HTTP for as long as the watch lasts.
 *
 * <p>Lifecycle: {@link #start} once, {@link #stop} once; thread-safe after start (Vert.x owns the threads).
 */
public final class ApiTransport {

  /** Prefix of the names of the transport's threads. */
  static final String THREAD_PREFIX = "embedded-apiserver-";

  private final ApiDispatcher dispatcher;
  private Vertx vertx;
  private HttpServer server;

  ApiTransport(ApiDispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  /**
   * Listens on {@code host}:{@code port} (0 picks a free port), with TLS when {@code certificate} is not null, and
   * returns the bound port.
   */
  int start(String host, int port, ServingCertificate certificate) {
    vertx = serverVertx();
    HttpServerRequestHandler mockHandler = new HttpServerRequestHandler(vertx) {
      @Override
      protected MockResponse onHttpRequest(RecordedRequest request) {
        return dispatcher.dispatch(request);
      }
    };
    HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(port)
        .setHandle100ContinueAutomatically(true).setCompressionSupported(false)
        .setMaxWebSocketFrameSize(64 * 1024 * 1024).setMaxWebSocketMessageSize(64 * 1024 * 1024);
    if (certificate != null) {
      options.setSsl(true).setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions()
          .setCertValue(io.vertx.core.buffer.Buffer.buffer(certificate.certificatePem()))
          .setKeyValue(io.vertx.core.buffer.Buffer.buffer(certificate.privateKeyPem())));
    }
    server = vertx.createHttpServer(options);
    server.requestHandler(request -> {
      RequestInfo info = RequestInfo.parse(request.method().name(), request.uri());
      if (isWebSocketUpgrade(request)) {
        if (ApiDispatcher.isWatch(info)) {
          webSocketWatch(request, info);
        } else {
          mockHandler.handle(request);
        }
        return;
      }
      if (ApiDispatcher.isWatch(info)) {
        streamWatch(request, info);
      } else {
        serve(request, info);
      }
    });
    return await(server.listen()).actualPort();
  }

  /**
   * The server's own Vert.x, its threads named {@value #THREAD_PREFIX}{@code vert.x-eventloop-thread-N} and so on,
   * so that a profile or a thread dump tells the server's event loops from the fabric8 clients' in the same JVM.
   */
  private static Vertx serverVertx() {
    VertxOptions options = new VertxOptions().setEventLoopPoolSize(Math.max(2, Runtime.getRuntime()
        .availableProcessors()));
    VertxThreadFactory named = new VertxThreadFactory() {
      @Override
      public VertxThread newVertxThread(Runnable target, String name, boolean worker, long maxExecTime,
          TimeUnit maxExecTimeUnit) {
        return new VertxThread(target, THREAD_PREFIX + name, worker, maxExecTime, maxExecTimeUnit);
      }
    };
    return VertxBootstrap.create().options(options).threadFactory(named)
        .transport(io.vertx.core.transport.Transport.NIO.implementation()).init().vertx();
  }

  /** Reads the whole body, dispatches on this event loop and writes the answer as one buffer. */
  private void serve(HttpServerRequest request, RequestInfo info) {
    request.body().onComplete(read -> {
      HttpServerResponse response = request.response();
      if (read.failed()) {
        if (!response.ended() && !response.closed()) {
          response.setStatusCode(400).end();
        }
        return;
      }
      Buffer body = read.result();
      ApiResponse answer;
      try {
        answer = dispatcher.serve(info, new ApiRequest(info.method(), request.uri(), request::getHeader,
            body == null || body.length() == 0 ? null : body.getBytes()));
      } catch (RuntimeException | Error e) {
        answer = Responses.error(ApiException.internal(e.toString()));
      }
      write(response, answer);
    });
  }

  private void write(HttpServerResponse response, ApiResponse answer) {
    if (response.closed()) {
      return;
    }
    response.setStatusCode(answer.code());
    if (answer.contentType() != null) {
      response.putHeader(HttpHeaders.CONTENT_TYPE, answer.contentType());
    }
    // A view over the answer's bytes (often a stored object's shared JSON): no copy; nobody changes them.
    Buffer out = BufferInternal.buffer(Unpooled.wrappedBuffer(answer.body()));
    long delay = answer.bodyDelay().toMillis();
    if (delay > 0) {
      vertx.setTimer(delay, t -> {
        if (!response.closed()) {
          response.end(out);
        }
      });
    } else {
      response.end(out);
    }
  }

  private void streamWatch(HttpServerRequest request, RequestInfo info) {
    Context context = vertx.getOrCreateContext();
    ServerWatch[] opened = new ServerWatch[1];
    Optional<ApiResponse> refused = dispatcher.openHttpWatch(info, request.getHeader("Accept"),
        request.getHeader("Authorization"), () -> new ChunkedHttpSink(request.response(), context),
        w -> opened[0] = w);
    if (refused.isPresent()) {
      write(request.response(), refused.get());
      return;
    }
    ServerWatch watch = opened[0];
    request.response().closeHandler(v -> watch.close());
  }

  /**
   * Serves a watch over a WebSocket: checks it, upgrades the connection and opens the watch on it; the watch ends
   * when the socket closes.
   */
  private void webSocketWatch(HttpServerRequest request, RequestInfo info) {
    ApiDispatcher.WatchAdmission admission = dispatcher.admitWatch(info, request.getHeader("Accept"),
        request.getHeader("Authorization"));
    if (admission.refusal() != null) {
      write(request.response(), admission.refusal());
      return;
    }
    request.toWebSocket().onSuccess(socket -> {
      ServerWatch watch = dispatcher.openWatch(admission.request(), new ServerWebSocketSink(socket));
      socket.closeHandler(v -> watch.close());
      socket.exceptionHandler(e -> watch.close());
      // Nothing the client sends matters (Vert.x answers pings and closes); keep reading so closes are seen.
      socket.handler(b -> { });
      socket.resume();
    }).onFailure(e -> {
      HttpServerResponse response = request.response();
      if (!response.ended() && !response.closed()) {
        response.setStatusCode(400).end();
      }
    });
  }

  private static boolean isWebSocketUpgrade(HttpServerRequest request) {
    String upgrade = request.getHeader("Upgrade");
    return upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("websocket");
  }

  /** Stops listening and releases Vert.x. */
  void stop() {
    if (server != null) {
      await(server.close());
    }
    if (vertx != null) {
      await(vertx.close());
    }
  }

  private static <T> T await(Future<T> future) {
    CompletableFuture<T> done = new CompletableFuture<>();
    future.onComplete(r -> {
      if (r.succeeded()) {
        done.complete(r.result());
      } else {
        done.completeExceptionally(r.cause());
      }
    });
    try {
      return done.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the transport", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the embedded API server transport failed: " + e.getMessage(), e);
    }
  }
}
