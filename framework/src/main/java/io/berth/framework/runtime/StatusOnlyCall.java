package io.berth.framework.runtime;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one request through a fabric8 client's own {@link HttpClient} (its transport and TLS, its interceptors:
 * authentication and token refresh, impersonation, User-Agent, the daemons' rate limiter; its retries of 429, 5xx
 * and connection failures) and answers only what the scheduler's writes use: the status code, and the body's text
 * when the server refused the request (the error message). A 2xx answer's body is drained chunk by chunk and
 * dropped: no copy into one array, no {@code String} decode, none of {@code sendAsync}'s extra futures and response
 * adapters, which the binding, Event and status writes paid for an answer they never read. Stateless and
 * thread-safe; the answer completes on the HTTP client's threads.
 */
public final class StatusOnlyCall {
  /** An error body longer than this is cut: the message is for logs and Status text. */
  static final int MAX_ERROR_BODY = 64 * 1024;

  private StatusOnlyCall() {
  }

  /** The server's answer: its status code and, when it is not 2xx, its body (else empty). */
  public record Answer(int code, String body) {
    public boolean successful() {
      return HttpResponse.isSuccessful(code);
    }
  }

  /**
   * Sends {@code request} with {@code http}; completes with the answer once its body is read, exceptionally when the
   * request could not be sent or the body not read (after fabric8's own retries).
   */
  public static CompletableFuture<Answer> send(HttpClient http, HttpRequest request) {
    Body body = new Body();
    return http.consumeBytes(request, body).thenCompose(response -> {
      int code = response.code();
      body.keep = !HttpResponse.isSuccessful(code);
      AsyncBody async = response.body();
      CompletableFuture<Answer> answer = async.done().thenApply(v -> new Answer(code, body.text()));
      async.consume();
      return answer;
    });
  }

  /**
   * The body consumer: keeps the bytes only once the code says the request was refused. Chunks arrive one at a time
   * (each asks for the next), so no two calls overlap; the code is set before the first chunk is requested.
   */
  private static final class Body implements AsyncBody.Consumer<List<ByteBuffer>> {
    // written before the first consume() and read by the chunks that consume() brings: ordered by fabric8's handoff
    volatile boolean keep;
    private ByteArrayOutputStream kept;

    @Override
    public void consume(List<ByteBuffer> chunks, AsyncBody asyncBody) {
      if (keep) {
        if (kept == null) {
          kept = new ByteArrayOutputStream();
        }
        for (ByteBuffer chunk : chunks) {
          int room = MAX_ERROR_BODY - kept.size();
          if (room <= 0) {
            break;
          }
          int n = Math.min(room, chunk.remaining());
          if (chunk.hasArray()) {
            kept.write(chunk.array(), chunk.arrayOffset() + chunk.position(), n);
          } else {
            byte[] bytes = new byte[n];
            chunk.duplicate().get(bytes);
            kept.write(bytes, 0, n);
          }
        }
      }
      asyncBody.consume();
    }

    String text() {
      return kept == null ? "" : kept.toString(StandardCharsets.UTF_8);
    }
  }
}
