package io.berth.embedded.server;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/WebSocket transport of the embedded API server, over plain HTTP or TLS (with a
 * {@link ServingCertificate}). It is the fabric8 mock web server's transport (its Vert.x request handler turns
 * requests into {@code RecordedRequest}s, upgrades WebSockets and writes {@code MockResponse}s) with one addition the
 * mock lacks: a watch requested without a WebSocket upgrade (kubectl, client-go) is streamed over chunked HTTP for
 * as long as the watch lasts, instead of as one finished body.
 *
 * <p>Lifecycle: {@link #start} once, {@link #stop} once; thread-safe after start (Vert.x owns the threads).
 */
public final class ApiTransport {

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
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Math.max(2, Runtime.getRuntime()
        .availableProcessors())));
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
      if (!isWebSocketUpgrade(request) && ApiDispatcher.isWatch(request.method().name(), request.uri())) {
        streamWatch(request);
      } else {
        mockHandler.handle(request);
      }
    });
    return await(server.listen()).actualPort();
  }

  private void streamWatch(HttpServerRequest request) {
    Context context = vertx.getOrCreateContext();
    ServerWatch[] opened = new ServerWatch[1];
    Optional<MockResponse> refused = dispatcher.openHttpWatch(request.method().name(), request.uri(),
        request.getHeader("Accept"), request.getHeader("Authorization"),
        () -> new ChunkedHttpSink(request.response(), context), w -> opened[0] = w);
    if (refused.isPresent()) {
      MockResponse r = refused.get();
      request.response().setStatusCode(r.code());
      r.getHeaders().toMultimap().forEach((k, v) -> request.response().headers().add(k, v));
      request.response().end(io.vertx.core.buffer.Buffer.buffer(r.getBody().getBytes()));
      return;
    }
    ServerWatch watch = opened[0];
    request.response().closeHandler(v -> watch.close());
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
