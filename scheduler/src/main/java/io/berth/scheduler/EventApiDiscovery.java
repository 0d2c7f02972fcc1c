package io.berth.scheduler;

import io.berth.framework.runtime.StatusOnlyCall;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Event API a recorder writes, decided once when it is made, as client-go's {@code EventBroadcasterAdapter}
 * decides: events.k8s.io/v1 when discovery of that group version ({@code GET /apis/events.k8s.io/v1}) succeeds,
 * core/v1 otherwise (the group is not served, discovery is refused, or the server did not answer within
 * {@link #TIMEOUT}). Like upstream's, the choice is not revisited while the recorder lives. Stateless and
 * thread-safe; {@link #servesEventsV1} blocks for the request.
 */
final class EventApiDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(EventApiDiscovery.class);
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private EventApiDiscovery() {
  }

  /** Whether {@code client}'s server serves events.k8s.io/v1; every failure answers false (and is logged). */
  static boolean servesEventsV1(KubernetesClient client) {
    String base = client.getMasterUrl().toString();
    URI uri = URI.create((base.endsWith("/") ? base : base + "/") + "apis/events.k8s.io/v1");
    HttpClient http = client.getHttpClient();
    HttpRequest request = http.newHttpRequestBuilder().uri(uri).header("Accept", "application/json").build();
    try {
      StatusOnlyCall.Answer answer = StatusOnlyCall.send(http, request)
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (answer.successful()) {
        return true;
      }
      LOG.info("GET {} answered HTTP {}: events.k8s.io/v1 is not available", uri, answer.code());
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOG.warn("GET {} failed: {}; assuming events.k8s.io/v1 is not available", uri,
          e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }
}
