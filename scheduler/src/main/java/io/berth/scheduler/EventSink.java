package io.berth.scheduler;

import io.berth.framework.runtime.StatusOnlyCall;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * Where {@link KubernetesEventRecorder} writes Events: a POST of a new Event and a strategic-merge PATCH of an
 * existing one, each answering the HTTP status code (a transport failure completes the future exceptionally).
 * Calls return at once; the answer completes on another thread. Implementations are thread-safe; the calls must be
 * made from a thread that may block (the client-side rate limiter waits on the sending thread).
 */
interface EventSink {

  /** POSTs {@code json} (a whole Event) to {@code namespace}'s events. */
  CompletableFuture<Integer> create(String namespace, String json);

  /** PATCHes the Event {@code namespace/name} with the strategic-merge patch {@code json}. */
  CompletableFuture<Integer> patch(String namespace, String name, String json);

  /**
   * The Events of the API below {@code apiPath} ({@code api/v1}, {@code apis/events.k8s.io/v1}) over a fabric8
   * client's HTTP client: the same transport, interceptors (rate limit) and retries as every other request of the
   * daemon, without fabric8's per-call operation objects or reading the answer's body into memory
   * ({@link StatusOnlyCall}: the recorder needs only the status code).
   */
  static EventSink over(KubernetesClient client, String apiPath) {
    String base = client.getMasterUrl().toString();
    String root = (base.endsWith("/") ? base : base + "/") + apiPath + "/namespaces/";
    HttpClient http = client.getHttpClient();
    return new EventSink() {
      @Override
      public CompletableFuture<Integer> create(String namespace, String json) {
        HttpRequest request = http.newHttpRequestBuilder()
            .uri(URI.create(root + namespace + "/events"))
            .post("application/json", json).build();
        return StatusOnlyCall.send(http, request).thenApply(StatusOnlyCall.Answer::code);
      }

      @Override
      public CompletableFuture<Integer> patch(String namespace, String name, String json) {
        HttpRequest request = http.newHttpRequestBuilder()
            .uri(URI.create(root + namespace + "/events/" + name))
            .method("PATCH", "application/strategic-merge-patch+json", json).build();
        return StatusOnlyCall.send(http, request).thenApply(StatusOnlyCall.Answer::code);
      }
    };
  }
}
