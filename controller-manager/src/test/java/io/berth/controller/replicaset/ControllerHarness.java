package io.berth.controller.replicaset;

import io.berth.controller.TestBinder;

import io.berth.controller.ControllerContext;
import io.berth.controller.KubernetesEventRecorderFactory;
import io.berth.controller.PodControl;
import io.berth.embedded.EmbeddedCluster;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedInformerFactory;
import io.berth.workqueue.SystemClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The ReplicaSet controller running against an embedded cluster as the daemon would run it (its own client, a shared
 * informer factory, an event recorder factory), optionally with the test binder on the same factory. Not
 * thread-safe; one test class or method owns it and closes it.
 */
final class ControllerHarness implements AutoCloseable {

  final KubernetesClient client;
  final SharedInformerFactory informers;
  final KubernetesEventRecorderFactory events;
  final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final ReplicaSetController controller;
  final TestBinder binder;

  private ControllerHarness(EmbeddedCluster cluster, boolean withBinder, UnaryOperator<PodControl> podControl,
      UnaryOperator<ResourceEventHandler<Pod>> podHandler) throws InterruptedException {
    this.client = cluster.newClient();
    this.informers = new SharedInformerFactory(client);
    this.events = new KubernetesEventRecorderFactory(client);
    ControllerContext context = new ControllerContext(client, informers, metrics, events, SystemClock.INSTANCE);
    this.controller = new ReplicaSetController(context, ReplicaSetController.BURST_REPLICAS, podControl, podHandler);
    this.binder = withBinder ? new TestBinder(client, informers) : null;
    informers.start();
    if (!informers.waitForCacheSync(Duration.ofSeconds(30))) {
      throw new IllegalStateException("informers did not sync");
    }
    controller.start(ReplicaSetControllerFactory.DEFAULT_CONCURRENT_SYNCS);
  }

  static ControllerHarness start(EmbeddedCluster cluster, boolean withBinder) throws InterruptedException {
    return new ControllerHarness(cluster, withBinder, UnaryOperator.identity(), UnaryOperator.identity());
  }

  static ControllerHarness start(EmbeddedCluster cluster, boolean withBinder, UnaryOperator<PodControl> podControl,
      UnaryOperator<ResourceEventHandler<Pod>> podHandler) throws InterruptedException {
    return new ControllerHarness(cluster, withBinder, podControl, podHandler);
  }

  @Override
  public void close() throws InterruptedException {
    controller.shutDown(Duration.ofSeconds(10));
    if (binder != null) {
      binder.close();
    }
    informers.shutdown();
    events.close();
    client.close();
  }
}
