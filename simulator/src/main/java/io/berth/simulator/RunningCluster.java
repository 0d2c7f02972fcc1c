package io.berth.simulator;

import io.berth.embedded.EmbeddedCluster;
import io.berth.informer.SharedInformerFactory;
import io.berth.scheduler.SchedulerAssembly;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The parts of a running simulation the dashboard reads: the embedded cluster, a client to it, the shared informer
 * factory (started and synced) and the in-process scheduler. Owned by whoever started them (a scenario run); the
 * holder of this record only reads. Immutable; the parts are thread-safe.
 */
public record RunningCluster(EmbeddedCluster cluster, KubernetesClient client, SharedInformerFactory informers,
    SchedulerAssembly scheduler) {
}
