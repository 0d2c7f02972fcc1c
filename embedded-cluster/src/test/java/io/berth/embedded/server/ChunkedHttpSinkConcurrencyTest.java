package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batching chunked watch sink over a real Vert.x HTTP server and the JDK HTTP client: 8 threads send 100,000
 * events, taking turns under one lock as writers hold the store lock, while the sink drains batches on its event
 * loop; the client receives every event exactly once, in the order sent, one per line, and the stream ends after
 * {@code close}.
 */
class ChunkedHttpSinkConcurrencyTest {

  private static final int WRITERS = 8;
  private static final int EVENTS = 100_000;

  private Vertx vertx;
  private HttpServer server;
  private final CompletableFuture<ChunkedHttpSink> sink = new CompletableFuture<>();

  @BeforeEach
  void startServer() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(request ->
        sink.complete(new ChunkedHttpSink(request.response(), vertx.getOrCreateContext())));
    server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void everyEventArrivesOnceInOrderFromConcurrentSenders() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    CompletableFuture<HttpResponse<java.util.stream.Stream<String>>> response = http.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + "/watch")).build(),
        HttpResponse.BodyHandlers.ofLines());
    ChunkedHttpSink watch = sink.get(10, TimeUnit.SECONDS);
    ReentrantLock storeLock = new ReentrantLock();
    int[] next = {0};
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      writers.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < EVENTS / WRITERS; i++) {
          storeLock.lock();
          try {
            int n = ++next[0];
            // alternately the shared frame and a per-watcher byte array, as watches of each kind send them
            byte[] object = ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
            if (n % 2 == 0) {
              watch.send(WatchFrame.of("ADDED", object));
            } else {
              watch.send(WatchFrame.of("ADDED", object).bytes());
            }
          } finally {
            storeLock.unlock();
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : writers) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    watch.close();
    HttpResponse<java.util.stream.Stream<String>> answer = response.get(60, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(200);
    List<String> lines = answer.body().toList();
    assertThat(lines).hasSize(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      String expected = "{\"type\":\"ADDED\",\"object\":{\"n\":" + (i + 1) + "}}";
      if (!lines.get(i).equals(expected)) {
        throw new AssertionError("line " + i + " is " + lines.get(i) + ", expected " + expected);
      }
    }
  }
}
