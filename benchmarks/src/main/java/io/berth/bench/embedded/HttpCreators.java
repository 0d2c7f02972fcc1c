package io.berth.bench.embedded;

import io.berth.embedded.server.Json;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Pod creates as a load generator sends them: {@code concurrency} request streams, each POSTing the next pod (compact
 * JSON serialized before the clock starts) over a keep-alive HTTP/1.1 connection of one Vert.x HTTP client as soon
 * as the previous answer arrived, so {@code concurrency} creates are in flight at any time. Each answer's status
 * must be 201 and its {@code metadata.resourceVersion} is read ({@link WatchEventHead}); no object model is built.
 * The work runs on the client's event loops, not on calling threads ({@link HttpOps.Timed#callerCpuNanos} is 0).
 *
 * <p>Stateless; {@link #create} is called from one thread. Each stream's latencies are confined to its callbacks,
 * which run one after another (each starts when the previous answer completed), and handed over through a future.
 */
final class HttpCreators {

  private HttpCreators() {
  }

  /** Creates the pods named {@code names} in {@code namespace} on the server at 127.0.0.1:{@code port}. */
  static HttpOps.Timed create(Vertx vertx, HttpClient http, int port, String namespace, List<String> names,
      int concurrency) throws Exception {
    List<Buffer> bodies = new ArrayList<>(names.size());
    for (String name : names) {
      bodies.add(Buffer.buffer(Json.bytes(BenchPods.tree(name))));
    }
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
        .setURI("/api/v1/namespaces/" + namespace + "/pods").putHeader("Content-Type", "application/json")
        .putHeader("Accept", "application/json");
    int slice = (names.size() + concurrency - 1) / concurrency;
    List<CompletableFuture<Latencies>> streams = new ArrayList<>();
    long start = System.nanoTime();
    for (int s = 0; s < concurrency; s++) {
      int from = Math.min(names.size(), s * slice);
      int to = Math.min(names.size(), (s + 1) * slice);
      CompletableFuture<Latencies> done = new CompletableFuture<>();
      streams.add(done);
      // each stream runs on an event-loop context of its own, so that every callback of its requests (and the
      // registration of each answer's body handler) runs there in order; a request started from this (non-Vert.x)
      // thread could see its answer's body delivered before the handler was set
      vertx.getOrCreateContext().runOnContext(v ->
          next(http, options, names, bodies, from, to, new Latencies(), done));
    }
    Latencies all = new Latencies();
    for (CompletableFuture<Latencies> stream : streams) {
      all.merge(stream.get(10, TimeUnit.MINUTES));
    }
    return new HttpOps.Timed(all, System.nanoTime() - start);
  }

  // sends create i of [i, to) and, when it is answered, the next one
  private static void next(HttpClient http, RequestOptions options, List<String> names, List<Buffer> bodies, int i,
      int to, Latencies latencies, CompletableFuture<Latencies> done) {
    if (i >= to) {
      done.complete(latencies);
      return;
    }
    long t0 = System.nanoTime();
    http.request(options).compose(request -> request.send(bodies.get(i))).compose(response -> {
      int status = response.statusCode();
      return response.body().compose(body -> {
        if (status != 201) {
          return Future.failedFuture("create of " + names.get(i) + " answered " + status + ": " + body);
        }
        byte[] bytes = body.getBytes();
        if (bytes.length == 0 || WatchEventHead.resourceVersionOf(bytes, 0, bytes.length) == null) {
          return Future.failedFuture("create of " + names.get(i) + " answered 201 without a resourceVersion ("
              + bytes.length + " bytes)");
        }
        return Future.succeededFuture();
      });
    }).onComplete(result -> {
      if (result.failed()) {
        done.completeExceptionally(result.cause());
        return;
      }
      latencies.add(System.nanoTime() - t0);
      next(http, options, names, bodies, i + 1, to, latencies, done);
    });
  }
}
