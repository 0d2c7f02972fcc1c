package io.berth.controller;

import io.berth.controller.deployment.DeploymentController;
import io.berth.controller.resourceclaim.ResourceClaimController;
import io.berth.controller.replicaset.ReplicaSetController;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * The ReplicaSet, Deployment and resource claim controllers wired as the daemon wires them (one client, one shared informer factory,
 * core/v1 Events, a metrics registry), for a process that hosts them without the daemon around them: the
 * simulator, benchmarks and integration tests. Create before the informer factory starts (the controllers register
 * their informers), {@link #start} once it has synced, close to drain.
 *
 * <p>Thread-safe as the controllers are; start and close once each.
 */
public final class InProcessControllers implements AutoCloseable {

  private final KubernetesEventRecorderFactory events;
  private final MeterRegistry metrics;
  private final ReplicaSetController replicaSets;
  private final DeploymentController deployments;
  private final ResourceClaimController resourceClaims;

  public InProcessControllers(KubernetesClient client, SharedInformerFactory informers) {
    this.events = new KubernetesEventRecorderFactory(client);
    this.metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerContext context = new ControllerContext(client, informers, metrics, events, SystemClock.INSTANCE);
    this.replicaSets = new ReplicaSetController(context);
    this.deployments = new DeploymentController(context);
    this.resourceClaims = ResourceClaimController.create(context);
  }

  /** Starts the controllers with {@code workers} workers each. */
  public void start(int workers) {
    replicaSets.start(workers);
    deployments.start(workers);
    resourceClaims.start(workers);
  }

  public MeterRegistry metrics() {
    return metrics;
  }

  /** Drains the controllers (up to 10 s each) and stops recording events. */
  @Override
  public void close() throws InterruptedException {
    resourceClaims.shutDown(Duration.ofSeconds(10));
    deployments.shutDown(Duration.ofSeconds(10));
    replicaSets.shutDown(Duration.ofSeconds(10));
    events.close();
  }
}
