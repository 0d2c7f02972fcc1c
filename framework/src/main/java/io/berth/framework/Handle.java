package io.berth.framework;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a plugin can use of the scheduler: the cycle's snapshot, the API client and the pod writes,
 * informer-backed listers, the event recorder, the parallelizer, the nominator, waiting pods, and the runners
 * preemption needs to re-evaluate a node. One per profile, created before the plugins; thread-safe.
 */
public interface Handle {
  /** The snapshot of the current scheduling cycle. */
  NodeInfoLister snapshotLister();

  KubernetesClient client();

  /** The scheduler's own pod writes (status patches, preemption's deletions). */
  PodApi podApi();

  /**
   * The scheduler's asynchronous pod writes (upstream's {@code APICacher()}): present only with the
   * {@code SchedulerAsyncAPICalls} gate on; empty means write synchronously, as before.
   */
  default Optional<ApiCacher> apiCacher() {
    return Optional.empty();
  }

  /** The scheduler's feature gates. */
  FeatureGates featureGates();

  /** Where preemption reports its metrics. */
  PreemptionMetrics preemptionMetrics();

  /**
   * Moves these pods from the unschedulable pool or backoffQ to activeQ at once (PreEnqueue still
   * applies), as upstream's {@code Handle.Activate}; a pod in neither is left alone.
   */
  void activate(Collection<Pod> pods);

  /**
   * A lister over an informer of {@code type}. Call it from a plugin factory, before the informers
   * start, so that the informer is created and synced with the others.
   */
  <T extends HasMetadata> ObjectLister<T> lister(Class<T> type);

  /**
   * An index over the informer of {@code type} under {@code indexName}, each object filed under the
   * keys {@code keys} returns (fast, side-effect free; empty leaves it out). Call it from a plugin
   * factory, before the informers start; the first registration of a name wins (plugins name their
   * indexes after themselves). By default, and without informers, it scans {@link #lister}.
   */
  default <T extends HasMetadata> ObjectIndex<T> index(Class<T> type, String indexName,
      java.util.function.Function<? super T, java.util.List<String>> keys) {
    return ObjectIndex.scanning(lister(type), keys);
  }

  EventRecorder eventRecorder();

  Parallelizer parallelizer();

  PodNominator nominator();

  Optional<WaitingPod> getWaitingPod(String podUid);

  void iterateOverWaitingPods(Consumer<WaitingPod> action);

  void rejectWaitingPod(String podUid);

  /**
   * Adds {@code handler} to the scheduler's shared informer of {@code type} (created if needed; call it from a
   * plugin factory so it syncs with the others). The returned supplier answers whether the handler has seen the
   * informer's initial list. Without informers (a configuration only validated, a benchmark fed in memory) the
   * handler is never called and the supplier answers true.
   */
  default <T extends HasMetadata> java.util.function.BooleanSupplier addEventHandler(Class<T> type,
      ObjectEventHandler<T> handler) {
    return () -> true;
  }

  /** Where a plugin exposes its own metrics; by default nowhere. */
  default PluginMetrics pluginMetrics() {
    return PluginMetrics.NOOP;
  }

  /** Runs the Filter plugins with the nominated pods of equal or higher priority added. */
  Status runFilterPluginsWithNominatedPods(CycleState state, Pod pod, NodeInfo nodeInfo);

  /** Runs the PreFilter plugins' AddPod extensions. */
  Status runPreFilterExtensionAddPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
      NodeInfo nodeInfo);

  /** Runs the PreFilter plugins' RemovePod extensions. */
  Status runPreFilterExtensionRemovePod(CycleState state, Pod podToSchedule, PodInfo podToRemove,
      NodeInfo nodeInfo);
}
