package io.berth.controller.deployment;

import io.berth.controller.ControllerContext;
import io.berth.controller.KubernetesEventRecorderFactory;
import io.berth.controller.TestBinder;
import io.berth.controller.replicaset.ReplicaSetController;
import io.berth.embedded.EmbeddedCluster;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * The Deployment and ReplicaSet controllers running together against an embedded cluster as the daemon runs them
 * (one client, one shared informer factory, Kubernetes events), with the test binder standing in for a scheduler.
 * Not thread-safe; one test class owns it and closes it.
 */
final class DeploymentHarness implements AutoCloseable {

  final KubernetesClient client;
  final SharedInformerFactory informers;
  final KubernetesEventRecorderFactory events;
  final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final ReplicaSetController replicaSets;
  final DeploymentController deployments;
  final TestBinder binder;

  DeploymentHarness(EmbeddedCluster cluster) throws InterruptedException {
    this.client = cluster.newClient();
    this.informers = new SharedInformerFactory(client);
    this.events = new KubernetesEventRecorderFactory(client);
    ControllerContext context = new ControllerContext(client, informers, metrics, events, SystemClock.INSTANCE);
    this.replicaSets = new ReplicaSetController(context);
    this.deployments = new DeploymentController(context);
    this.binder = new TestBinder(client, informers);
    informers.start();
    if (!informers.waitForCacheSync(Duration.ofSeconds(30))) {
      throw new IllegalStateException("informers did not sync");
    }
    replicaSets.start(5);
    deployments.start(5);
  }

  @Override
  public void close() throws InterruptedException {
    deployments.shutDown(Duration.ofSeconds(10));
    replicaSets.shutDown(Duration.ofSeconds(10));
    binder.close();
    informers.shutdown();
    events.close();
    client.close();
  }
}
