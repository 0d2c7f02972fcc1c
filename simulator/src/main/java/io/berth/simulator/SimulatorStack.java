package io.berth.simulator;

import io.berth.controller.InProcessControllers;
import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.framework.EventResource;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.informer.SharedInformerFactory;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.InformerListers;
import io.berth.scheduler.KubernetesEventRecorder;
import io.berth.scheduler.SchedulerAssembly;
import io.berth.scheduler.explain.ExplainStore;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a scenario file runs on: an embedded cluster, one shared informer factory, Berth's scheduler (the default
 * profile, or a scenario's {@code KubeSchedulerConfiguration}) wired as the daemon wires it, including the informers
 * of the other kinds its plugins watch, and Berth's ReplicaSet, Deployment and resource claim controllers.
 * {@link #start} brings everything up in order; {@link #close} takes it down in reverse. Not thread-safe: started
 * and closed by one thread; the parts it hands out are thread-safe.
 */
final class SimulatorStack implements AutoCloseable {

  private static final Duration SYNC = Duration.ofSeconds(60);
  private static final Map<EventResource, Class<? extends HasMetadata>> OTHER_KINDS = Map.of(
      EventResource.PERSISTENT_VOLUME_CLAIM, PersistentVolumeClaim.class,
      EventResource.PERSISTENT_VOLUME, PersistentVolume.class,
      EventResource.STORAGE_CLASS, StorageClass.class,
      EventResource.CSI_NODE, CSINode.class,
      EventResource.RESOURCE_CLAIM, io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class,
      EventResource.RESOURCE_SLICE, io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class,
      EventResource.DEVICE_CLASS, io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class);

  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private SharedInformerFactory informers;
  private SchedulerAssembly scheduler;
  private InProcessControllers controllers;

  /**
   * What a caller sets up between the cluster's start and the daemons': CustomResourceDefinitions the plugins watch,
   * nodes, namespaces, informers of its own on the shared factory (registered before it starts).
   */
  @FunctionalInterface
  interface BeforeDaemons {
    void accept(EmbeddedCluster cluster, KubernetesClient client, SharedInformerFactory informers);
  }

  /**
   * Starts the cluster (API server on {@code port}, 0 for a free one), hands it to {@code beforeDaemons}, then
   * starts the informers, controllers and scheduler.
   */
  RunningCluster start(int port, Path kubeconfig, Optional<String> schedulerConfig,
      Consumer<KubernetesClient> beforeDaemons) throws InterruptedException {
    return start(port, kubeconfig, schedulerConfig, (c, k, i) -> beforeDaemons.accept(k));
  }

  /** As {@link #start(int, Path, Optional, Consumer)}, the hook also given the cluster and the informer factory. */
  RunningCluster start(int port, Path kubeconfig, Optional<String> schedulerConfig, BeforeDaemons beforeDaemons)
      throws InterruptedException {
    Registry registry = InTreeRegistry.create();
    SchedulerConfiguration config = schedulerConfig.map(c -> SchedulerConfigLoader.load(c, registry))
        .orElseGet(() -> SchedulerConfigLoader.defaults(registry));
    cluster = EmbeddedCluster.builder().port(port).kubeconfig(kubeconfig)
        .bookmarkInterval(Duration.ofSeconds(5))
        .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ofMillis(300))
            .withTerminationDelay(Duration.ofMillis(500)))
        .start();
    client = cluster.newClient();
    informers = new SharedInformerFactory(client);
    beforeDaemons.accept(cluster, client, informers);
    Lister<Pod> pods = informers.lister(Pod.class);
    scheduler = SchedulerAssembly.builder(config, registry).client(client)
        .listers(new InformerListers(informers))
        .eventRecorders(name -> new KubernetesEventRecorder(client, name))
        .explainStore(ExplainStore.withDefaults())
        .informerPod(p -> pods.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
        .build();
    informers.informerFor(Pod.class).addEventHandler(scheduler.podHandler());
    informers.informerFor(Node.class).addEventHandler(scheduler.nodeHandler());
    for (EventResource resource : scheduler.otherResourcesOfInterest()) {
      Class<? extends HasMetadata> kind = OTHER_KINDS.get(resource);
      if (kind != null) {
        register(kind, resource);
      }
    }
    controllers = new InProcessControllers(client, informers);
    informers.start();
    if (!informers.waitForCacheSync(SYNC)) {
      throw new IllegalStateException("informers did not sync within " + SYNC);
    }
    controllers.start(5);
    scheduler.start();
    return new RunningCluster(cluster, client, informers, scheduler);
  }

  private <T extends HasMetadata> void register(Class<T> kind, EventResource resource) {
    informers.informerFor(kind).addEventHandler(scheduler.<T>otherHandler(resource));
  }

  @Override
  public void close() {
    if (controllers != null) {
      try {
        controllers.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (scheduler != null) {
      try {
        scheduler.stop(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (informers != null) {
      informers.shutdown();
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
