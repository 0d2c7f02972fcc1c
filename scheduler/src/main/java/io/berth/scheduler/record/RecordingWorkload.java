package io.berth.scheduler.record;

import io.berth.component.DaemonContext;
import io.berth.component.DaemonWorkload;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.FunctionCounter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's {@code --record FILE}: wraps the scheduler's workload and, when it is built, adds a
 * {@link StreamRecorder} handler to the shared informers of pods, nodes, PersistentVolumes,
 * PersistentVolumeClaims and of what the default plugins read through listers (StorageClasses,
 * CSINodes, Namespaces, Services, ReplicationControllers, ReplicaSets, StatefulSets,
 * PodDisruptionBudgets; the daemon's ClusterRole grants list and watch on each), and, when the API
 * server serves them, informers of scheduler-plugins' {@code scheduling.x-k8s.io/v1alpha1}
 * PodGroups and ElasticQuotas and of kube-scheduler 1.36's {@code scheduling.k8s.io/v1alpha2}
 * PodGroups (what Coscheduling, TopologyPlacement and CapacityScheduling read; Workloads reach the
 * scheduler only through the PodGroups made from them, so they are not recorded). The recorder's handlers only
 * enqueue, so the scheduler's own handlers are never slowed by the file. Metrics:
 * {@code berth_scheduler_record_events_total{result="recorded|written|dropped|failed"}}. The file is
 * closed after the wrapped workload stopped. Thread-safe as {@link DaemonWorkload} requires: the
 * recorder is thread-safe and final, the generic informers are in a concurrent list.
 */
public final class RecordingWorkload implements DaemonWorkload {
  /** scheduler-plugins' API group version of PodGroup and ElasticQuota. */
  public static final String SCHEDULING_X_K8S_IO = "scheduling.x-k8s.io/v1alpha1";

  private static final Logger LOG = LoggerFactory.getLogger(RecordingWorkload.class);
  /** kube-scheduler 1.36's Workload API group version, whose PodGroups the scheduler reads. */
  public static final String SCHEDULING_K8S_IO_V1ALPHA2 = "scheduling.k8s.io/v1alpha2";
  // {apiVersion, plural, kind}: what the gang and quota plugins read
  private static final List<String[]> CUSTOM_KINDS = List.of(
      new String[] {SCHEDULING_X_K8S_IO, "podgroups", "PodGroup"},
      new String[] {SCHEDULING_X_K8S_IO, "elasticquotas", "ElasticQuota"},
      new String[] {SCHEDULING_K8S_IO_V1ALPHA2, "podgroups", "PodGroup"});

  private final DaemonWorkload delegate;
  private final Path file;
  private final StreamRecorder recorder;
  private final List<SharedIndexInformer<GenericKubernetesResource>> customInformers =
      new CopyOnWriteArrayList<>();

  /**
   * Opens {@code file} for appending at once (so a bad path fails before the daemon starts) and
   * records into it once built. Throws {@link IOException} when the file cannot be opened.
   */
  public RecordingWorkload(DaemonWorkload delegate, Path file) throws IOException {
    this.delegate = delegate;
    this.file = file;
    this.recorder = StreamRecorder.open(file);
  }

  @Override
  public Duration informerResyncPeriod() {
    return delegate.informerResyncPeriod();
  }

  @Override
  public void build(DaemonContext context) throws Exception {
    delegate.build(context);
    StreamRecorder r = recorder;
    for (String result : List.of("recorded", "written", "dropped", "failed")) {
      FunctionCounter.builder("berth_scheduler_record_events", r, rec -> switch (result) {
        case "recorded" -> rec.recorded();
        case "written" -> rec.written();
        case "dropped" -> rec.dropped();
        default -> rec.failed();
      }).tag("result", result).description("Events of the --record stream, by what became of them")
          .register(context.metrics());
    }
    addTo(context, Pod.class, "Pod", "v1", r);
    addTo(context, Node.class, "Node", "v1", r);
    addTo(context, PersistentVolume.class, "PersistentVolume", "v1", r);
    addTo(context, PersistentVolumeClaim.class, "PersistentVolumeClaim", "v1", r);
    // what the default plugins read through listers: spreading's default selectors, namespaces,
    // disruption budgets, storage classes and CSI nodes (so that a replay scores as the scheduler did)
    addTo(context, StorageClass.class, "StorageClass", "storage.k8s.io/v1", r);
    addTo(context, CSINode.class, "CSINode", "storage.k8s.io/v1", r);
    addTo(context, Namespace.class, "Namespace", "v1", r);
    addTo(context, Service.class, "Service", "v1", r);
    addTo(context, ReplicationController.class, "ReplicationController", "v1", r);
    addTo(context, ReplicaSet.class, "ReplicaSet", "apps/v1", r);
    addTo(context, StatefulSet.class, "StatefulSet", "apps/v1", r);
    addTo(context, PodDisruptionBudget.class, "PodDisruptionBudget", "policy/v1", r);
    for (String[] kind : servedCustomKinds(context.client())) {
      String apiVersion = kind[0];
      customInformers.add(context.client().genericKubernetesResources(apiVersion, kind[2])
          .inAnyNamespace().inform(new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource obj) {
              r.record(RecordedEvent.Type.ADDED, kind[2], apiVersion, obj);
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
              r.record(RecordedEvent.Type.MODIFIED, kind[2], apiVersion, newObj);
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
              r.record(RecordedEvent.Type.DELETED, kind[2], apiVersion, obj);
            }
          }));
    }
    LOG.info("recording the scheduler's informer stream to {}", file);
  }

  private static <T extends HasMetadata> void addTo(DaemonContext context, Class<T> type, String kind,
      String apiVersion, StreamRecorder r) {
    context.informers().informerFor(type).addEventHandler(r.<T>handler(kind, apiVersion));
  }

  /** The gang and quota kinds the API server serves (discovery); none of a group version it cannot say. */
  private static List<String[]> servedCustomKinds(KubernetesClient client) {
    List<String[]> out = new ArrayList<>();
    for (String apiVersion : List.of(SCHEDULING_X_K8S_IO, SCHEDULING_K8S_IO_V1ALPHA2)) {
      try {
        APIResourceList list = client.getApiResources(apiVersion);
        if (list == null || list.getResources() == null) {
          continue;
        }
        for (String[] kind : CUSTOM_KINDS) {
          for (APIResource res : list.getResources()) {
            if (kind[0].equals(apiVersion) && kind[1].equals(res.getName())) {
              out.add(kind);
            }
          }
        }
      } catch (RuntimeException e) {
        LOG.debug("discovery of {} failed; not recording its PodGroups or ElasticQuotas: {}",
            apiVersion, e.getMessage());
      }
    }
    return out;
  }

  @Override
  public void startWork() {
    delegate.startWork();
  }

  @Override
  public boolean stopWork(Duration timeout) throws InterruptedException {
    boolean done = delegate.stopWork(timeout);
    for (SharedIndexInformer<GenericKubernetesResource> informer : customInformers) {
      informer.stop();
    }
    recorder.close();
    return done;
  }

  /** The recorder. */
  public StreamRecorder recorder() {
    return recorder;
  }
}
