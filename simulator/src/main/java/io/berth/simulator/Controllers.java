package io.berth.simulator;

import io.berth.controller.ControllerContext;
import io.berth.controller.KubernetesEventRecorderFactory;
import io.berth.controller.deployment.DeploymentController;
import io.berth.controller.replicaset.ReplicaSetController;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * Berth's ReplicaSet and Deployment controllers running in the simulator's process, on its client and shared
 * informer factory, as the berth-controller-manager daemon runs them. Create before the factory starts; start after
 * it synced. Thread-safe as the controllers are.
 */
final class Controllers implements AutoCloseable {

  private final KubernetesEventRecorderFactory events;
  private final ReplicaSetController replicaSets;
  private final DeploymentController deployments;

  Controllers(KubernetesClient client, SharedInformerFactory informers) {
    this.events = new KubernetesEventRecorderFactory(client);
    ControllerContext context = new ControllerContext(client, informers, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), events,
        SystemClock.INSTANCE);
    this.replicaSets = new ReplicaSetController(context);
    this.deployments = new DeploymentController(context);
  }

  void start() {
    replicaSets.start(5);
    deployments.start(5);
  }

  @Override
  public void close() throws InterruptedException {
    deployments.shutDown(Duration.ofSeconds(5));
    replicaSets.shutDown(Duration.ofSeconds(5));
    events.close();
  }
}
