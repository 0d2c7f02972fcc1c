package io.berth.informer;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The {@link Reflector}'s access to one collection on the API server: list a page and open a
 * watch. {@link Fabric8ListerWatcher} is the real implementation; tests supply fakes. Failures
 * are reported as {@link KubernetesClientException} whose {@code getCode()} is the HTTP status
 * (410 for an expired resourceVersion or continue token, 429 for throttling, 0 when no response
 * was received). Implementations must be thread-safe.
 */
public interface ListerWatcher<T> {

  /** Lists one page. */
  ListPage<T> list(ListRequest request);

  /**
   * Opens a watch. Returns once the server accepted it; a refusal (for example 410 because the
   * resourceVersion is too old) is thrown. The returned stream must not reconnect by itself: when
   * the connection ends, the stream ends, and the reflector decides what to do next.
   */
  WatchStream<T> watch(WatchRequest request);

  /** A human-readable description (kind, namespace, selectors) for logs. */
  default String description() {
    return toString();
  }
}
