package io.berth.scheduler;

import io.berth.component.DaemonContext;
import io.berth.component.DaemonWorkload;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.runtime.Registry;
import io.berth.informer.Lister;
import io.berth.component.LeaseAnnotations;
import io.berth.scheduler.config.SchedulerConfiguration;
import io.berth.scheduler.debug.DebugEndpoints;
import io.berth.scheduler.debug.LeaderForwarding;
import io.berth.scheduler.debug.Simulation;
import io.berth.scheduler.debug.SimulationRegistry;
import io.berth.scheduler.debug.SnapshotReport;
import io.berth.scheduler.explain.ExplainStore;
import io.berth.scheduler.explain.ResultAnnotations;
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
      EventResource.CSI_NODE, CSINode.class,
      EventResource.RESOURCE_CLAIM, io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class,
      EventResource.RESOURCE_SLICE, io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice.class,
      EventResource.DEVICE_CLASS, io.fabric8.kubernetes.api.model.resource.v1.DeviceClass.class);

  private final SchedulerConfiguration config;
  private final Registry registry;
  private final FeatureGates featureGates;
  private final ExplainOptions explain;
  private volatile SchedulerAssembly assembly;
  // set once the daemon starts the work (with leader election: once this instance leads)
  private volatile boolean working;

  SchedulerWorkload(SchedulerConfiguration config, Registry registry, FeatureGates featureGates) {
    this(config, registry, featureGates, ExplainOptions.DEFAULTS);
  }

  SchedulerWorkload(SchedulerConfiguration config, Registry registry, FeatureGates featureGates,
      ExplainOptions explain) {
    this.config = config;
    this.registry = registry;
    this.featureGates = featureGates;
    this.explain = explain;
  }

  /**
   * The explain flags: the ring size per pod (0 records nothing), the overall entry bound, and
   * whether kube-scheduler-simulator's result annotations are written onto pods, and the host
   * standbys reach this instance's {@code /debug} at while it leads.
   */
  record ExplainOptions(int attemptsPerPod, long maxEntries, boolean resultAnnotations,
      String debugAdvertiseAddress) {
    static final ExplainOptions DEFAULTS = new ExplainOptions(
        ExplainStore.DEFAULT_ATTEMPTS_PER_POD, ExplainStore.DEFAULT_MAX_ENTRIES, false, "127.0.0.1");
  }

  @Override
  public void build(DaemonContext context) {
    Lister<Pod> pods = context.informers().lister(Pod.class);
    Lister<Node> nodes = context.informers().lister(Node.class);
    InformerListers listers = new InformerListers(context.informers());
    SchedulerAssembly.Builder builder = SchedulerAssembly.builder(config, registry)
        .client(context.client())
        .featureGates(featureGates)
        .listers(listers)
        .eventRecorders(name -> new KubernetesEventRecorder(context.eventsClient(), name,
            context.metrics()))
        .meterRegistry(context.metrics())
        .informerPod(p -> pods.get(p.getMetadata().getNamespace(), p.getMetadata().getName()))
        .explainStore(new ExplainStore(explain.attemptsPerPod(), explain.maxEntries()));
    if (explain.resultAnnotations()) {
      builder.attemptListener(new ResultAnnotations(context.client(), context.metrics())::write);
    }
    SchedulerAssembly a = builder.build();
    new DebugEndpoints(a.explainer(),
        new SnapshotReport(a.cache(), a.queue(), nodes::list, pods::list,
            a.scheduler()::responsibleFor),
        new Simulation(config, registry, listers, featureGates, a.cache(),
            new SimulationRegistry(context.client())),
        leadership(context)).register(context.routes());
    if (context.instance().lease().isPresent()) {
      new LeaderForwarding(context.instance(), explain.debugAdvertiseAddress(), () -> working)
          .register(context.routes());
    }
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

  /** Leading once the daemon started the work; the leader is the Lease's holderIdentity as last read. */
  private DebugEndpoints.Leadership leadership(DaemonContext context) {
    Optional<LeaseAnnotations> lease = context.instance().lease();
    if (!context.settings().leaderElection().enabled() || lease.isEmpty()) {
      return DebugEndpoints.Leadership.ALWAYS;
    }
    return new DebugEndpoints.Leadership() {
      @Override
      public boolean leading() {
        return working;
      }

      @Override
      public Optional<String> leader() {
        return lease.get().observed().map(LeaseAnnotations.Observed::holderIdentity)
            .filter(h -> !h.isEmpty());
      }
    };
  }

  private static <T extends HasMetadata> void register(DaemonContext context, Class<T> kind,
      EventResource resource, SchedulerAssembly a) {
    context.informers().informerFor(kind).addEventHandler(a.<T>otherHandler(resource));
  }

  @Override
  public void startWork() {
    assembly.start();
    working = true;
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
