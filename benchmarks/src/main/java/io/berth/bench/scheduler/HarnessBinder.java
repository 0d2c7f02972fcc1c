package io.berth.bench.scheduler;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.util.function.Supplier;

/**
 * Bind for the in-process harness: instead of calling an API server it hands the bound pod to
 * {@code onBound}, which feeds it back through the scheduler's pod handler as the informer's
 * update event would (confirming the assumed pod in the cache). Thread-safe if {@code onBound} is.
 */
final class HarnessBinder implements BindPlugin {
  static final String NAME = "HarnessBinder";

  /**
   * Told about each bound pod: the pod before binding (built on demand: a listener that still holds the pod as it
   * was added needs no copy), the pod after binding, and its latency in nanos.
   */
  interface Listener {
    void bound(Supplier<Pod> unbound, Pod bound, long latencyNanos);
  }

  private final Listener onBound;

  HarnessBinder(Listener onBound) {
    this.onBound = onBound;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Status bind(CycleState state, Pod pod, String nodeName) {
    Supplier<Pod> unbound = () -> new PodBuilder(pod).editSpec().withNodeName(null).endSpec().build();
    Pod bound = boundCopy(pod);
    long latency = state.read(HarnessClock.KEY, HarnessClock.Start.class)
        .map(s -> System.nanoTime() - s.nanos()).orElse(-1L);
    onBound.bound(unbound, bound, latency);
    return Status.SUCCESS;
  }

  /**
   * The pod as the informer's update after binding shows it: resourceVersion 2, phase Pending. A new pod and a new
   * metadata over the assumed pod's spec and (when already Pending) status objects, not a deep copy through the
   * builders: the scheduler never mutates a pod it holds, and two deep copies per pod made the builders' copy methods
   * some of the cold run's longest C2 compilations and a share of its CPU that was the harness's, not the scheduler's.
   */
  static Pod boundCopy(Pod pod) {
    ObjectMeta meta = new ObjectMetaBuilder(pod.getMetadata()).withResourceVersion("2").build();
    PodStatus status = pod.getStatus() != null && "Pending".equals(pod.getStatus().getPhase()) ? pod.getStatus()
        : new PodStatusBuilder(pod.getStatus() == null ? new PodStatus() : pod.getStatus()).withPhase("Pending").build();
    Pod bound = new Pod(pod.getApiVersion(), pod.getKind(), meta, pod.getSpec(), status);
    pod.getAdditionalProperties().forEach(bound::setAdditionalProperty);
    return bound;
  }
}
