package io.berth.scheduler;

import io.berth.framework.FeatureGates;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.informer.SharedInformerFactory;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * A scheduler wired to a cluster in the test's JVM: its own informer factory, the real assembly,
 * the API client's events. For integration tests; confined to the test thread apart from the
 * scheduler's own threads.
 */
final class InProcessScheduler implements AutoCloseable {
  final SharedInformerFactory informers;
  final SchedulerAssembly assembly;
  final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  InProcessScheduler(KubernetesClient client, String configYaml) throws InterruptedException {
    this(client, configYaml, InTreeRegistry.create());
  }

  InProcessScheduler(KubernetesClient client, String configYaml, Registry registry)
      throws InterruptedException {
    this(client, configYaml, registry, FeatureGates.defaults());
  }

  InProcessScheduler(KubernetesClient client, String configYaml, Registry registry,
      FeatureGates gates) throws InterruptedException {
    this(client, configYaml, registry, gates, new java.util.SplittableRandom());
  }

  /** {@code random}: the algorithm's tie-break source (tests inject a constant one). */
  InProcessScheduler(KubernetesClient client, String configYaml, Registry registry,
      FeatureGates gates, java.util.random.RandomGenerator random) throws InterruptedException {
    SchedulerConfiguration config = configYaml == null ? SchedulerConfigLoader.defaults(registry)
        : SchedulerConfigLoader.load(configYaml, registry);
    informers = new SharedInformerFactory(client);
    Lister<Pod> pods = informers.lister(Pod.class);
    assembly = SchedulerAssembly.builder(config, registry).client(client).featureGates(gates)
        .listers(new InformerListers(informers))
        .eventRecorders(name -> new KubernetesEventRecorder(client, name))
        .meterRegistry(metrics).random(random)
        .informerPod(p -> pods.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
        .build();
    informers.informerFor(Pod.class).addEventHandler(assembly.podHandler());
    informers.informerFor(Node.class).addEventHandler(assembly.nodeHandler());
    // the DRA kinds, as SchedulerWorkload registers them, so claim/slice/class events move pods
    for (io.berth.framework.EventResource r : assembly.otherResourcesOfInterest()) {
      switch (r) {
        case RESOURCE_CLAIM -> informers.informerFor(
            io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
            .addEventHandler(assembly.otherHandler(r));
        case RESOURCE_SLICE -> informers.informerFor(
            io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class)
            .addEventHandler(assembly.otherHandler(r));
        case DEVICE_CLASS -> informers.informerFor(
            io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class)
            .addEventHandler(assembly.otherHandler(r));
        default -> { }
      }
    }
    informers.start();
    if (!informers.waitForCacheSync(Duration.ofSeconds(30))) {
      throw new IllegalStateException("informers did not sync");
    }
    assembly.start();
  }

  String scrape() {
    return metrics.scrape();
  }

  @Override
  public void close() throws InterruptedException {
    assembly.stop(Duration.ofSeconds(10));
    informers.shutdown();
  }
}
