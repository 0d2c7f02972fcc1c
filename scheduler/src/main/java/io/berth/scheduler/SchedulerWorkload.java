package io.berth.scheduler;

import io.berth.component.DaemonContext;
import io.berth.component.DaemonWorkload;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler as a {@link DaemonWorkload}: {@link #build} wires a {@link SchedulerAssembly} onto
 * the daemon's informers (pods, nodes, and the kinds the enabled plugins watch), so the queue and
 * cache fill while the daemon waits for leadership; {@link #startWork()} starts the loop;
 * {@link #stopWork} stops it and waits for binding cycles in flight. Calls come from the daemon's
 * threads, one each, in that order.
 */
final class SchedulerWorkload implements DaemonWorkload {
  private static final Map<EventResource, Class<? extends HasMetadata>> OTHER_KINDS = Map.of(
      EventResource.PERSISTENT_VOLUME_CLAIM, PersistentVolumeClaim.class,
      EventResource.PERSISTENT_VOLUME, PersistentVolume.class,
      EventResource.STORAGE_CLASS, StorageClass.class,
      EventResource.CSI_NODE, CSINode.class);

  private final SchedulerConfiguration config;
  private final Registry registry;
  private final FeatureGates featureGates;
  private volatile SchedulerAssembly assembly;

  SchedulerWorkload(SchedulerConfiguration config, Registry registry, FeatureGates featureGates) {
    this.config = config;
    this.registry = registry;
    this.featureGates = featureGates;
  }

  @Override
  public void build(DaemonContext context) {
    Lister<Pod> pods = context.informers().lister(Pod.class);
    SchedulerAssembly a = SchedulerAssembly.builder(config, registry)
        .client(context.client())
        .featureGates(featureGates)
        .listers(new InformerListers(context.informers()))
        .eventRecorders(name -> new KubernetesEventRecorder(context.client(), name))
        .meterRegistry(context.metrics())
        .informerPod(p -> pods.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
        .build();
    context.informers().informerFor(Pod.class).addEventHandler(a.podHandler());
    context.informers().informerFor(Node.class).addEventHandler(a.nodeHandler());
    for (EventResource resource : a.otherResourcesOfInterest()) {
      Class<? extends HasMetadata> kind = OTHER_KINDS.get(resource);
      if (kind != null) {
        register(context, kind, resource, a);
      }
    }
    this.assembly = a;
  }

  private static <T extends HasMetadata> void register(DaemonContext context, Class<T> kind,
      EventResource resource, SchedulerAssembly a) {
    context.informers().informerFor(kind).addEventHandler(a.<T>otherHandler(resource));
  }

  @Override
  public void startWork() {
    assembly.start();
  }

  @Override
  public boolean stopWork(Duration timeout) throws InterruptedException {
    SchedulerAssembly a = assembly;
    return a == null || a.stop(timeout);
  }

  Optional<SchedulerAssembly> assembly() {
    return Optional.ofNullable(assembly);
  }
}
