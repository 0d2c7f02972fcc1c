package io.berth.controller;

import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.Clock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What every controller gets from the daemon: the API client, the shared informer factory (one informer per type
 * for all controllers; never list the API server in a sync, read listers), the metrics registry (workqueue metrics
 * and sync counts go there), a way to record Events as a named component, and the clock all timing goes through.
 * Immutable; the parts are thread-safe.
 *
 * @param client the API client (rate limited by {@code --kube-api-qps}/{@code --kube-api-burst})
 * @param informers the shared informer factory; started by the daemon after every controller is created
 * @param metrics the registry {@code /metrics} serves
 * @param events creates event recorders per component ({@code replicaset-controller})
 * @param clock time for queues, expectations and availability checks
 */
public record ControllerContext(KubernetesClient client, SharedInformerFactory informers, MeterRegistry metrics,
    EventRecorderFactory events, Clock clock) {
}
