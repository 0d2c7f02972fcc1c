package io.berth.controller;

import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.Clock;
import io.berth.workqueue.MetricsProvider;
import io.berth.workqueue.MicrometerMetricsProvider;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What every controller gets from the daemon: the API client, the shared informer factory (one informer per type
 * for all controllers; never list the API server in a sync, read listers), the metrics registry (workqueue metrics
 * and sync counts go there), a way to record Events as a named component, and the clock all timing goes through.
 * Immutable; the parts are thread-safe.
 *
 * @param client the controller's API client (its own token bucket of {@code --kube-api-qps}/{@code --kube-api-burst})
 * @param informers the shared informer factory; started by the daemon after every controller is created
 * @param metrics the registry {@code /metrics} serves
 * @param events creates event recorders per component ({@code replicaset-controller})
 * @param clock time for queues, expectations and availability checks
 */
public record ControllerContext(KubernetesClient client, SharedInformerFactory informers, MeterRegistry metrics,
    EventRecorderFactory events, Clock clock) {

  /**
   * Workqueue metrics in {@link #metrics()} under client-go's names ({@code workqueue_depth{name=...}},
   * {@code workqueue_adds_total}, ...): pass it when creating a controller's queue, for example
   * {@code WorkQueues.newRateLimitingQueue("replicaset", RateLimiters.defaultControllerRateLimiter(clock()),
   * clock(), queueMetrics())}. Queue names must be unique per daemon.
   */
  public MetricsProvider queueMetrics() {
    return new MicrometerMetricsProvider(metrics);
  }

  /**
   * Reconcile metrics in {@link #metrics()}: {@code berth_controller_syncs_total} and
   * {@code berth_controller_sync_duration_seconds}; wrap every sync in {@link ControllerMetrics#timeSync}. Call once
   * per controller and keep the result.
   */
  public ControllerMetrics syncMetrics() {
    return new ControllerMetrics(metrics);
  }
}
