package io.berth.controller.deployment;

import io.berth.controller.InProcessControllers;
import io.berth.controller.TestBinder;
import io.berth.embedded.EmbeddedCluster;
import io.berth.informer.SharedInformerFactory;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/**
 * The Deployment and ReplicaSet controllers running together against an embedded cluster as the daemon runs them
 * ({@link InProcessControllers}: one client, one shared informer factory, Kubernetes events), with the test binder
 * standing in for a scheduler. Not thread-safe; one test class owns it and closes it.
 */
final class DeploymentHarness implements AutoCloseable {

  final KubernetesClient client;
  final SharedInformerFactory informers;
  final InProcessControllers controllers;
  final TestBinder binder;

  DeploymentHarness(EmbeddedCluster cluster) throws InterruptedException {
    this.client = cluster.newClient();
    this.informers = new SharedInformerFactory(client);
    this.controllers = new InProcessControllers(client, informers);
    this.binder = new TestBinder(client, informers);
    informers.start();
    if (!informers.waitForCacheSync(Duration.ofSeconds(30))) {
      throw new IllegalStateException("informers did not sync");
    }
    controllers.start(5);
  }

  @Override
  public void close() throws InterruptedException {
    controllers.close();
    binder.close();
    informers.shutdown();
    client.close();
  }
}
