package io.berth.bench.scheduler;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;

/**
 * Bind for the in-process harness: instead of calling an API server it hands the bound pod to
 * {@code onBound}, which feeds it back through the scheduler's pod handler as the informer's
 * update event would (confirming the assumed pod in the cache). The bound pod is what the API
 * server would return: the assumed pod with a new resourceVersion and phase Pending, as a new
 * {@link Pod} and {@link ObjectMeta} that share the assumed pod's spec and (when already Pending)
 * status objects, which nobody mutates (the scheduler treats pods as read-only); a deep copy
 * through fabric8's builders cost the binding threads most of their time, a cost of the
 * harness, not of the scheduler. Thread-safe if {@code onBound} is.
 */
final class HarnessBinder implements BindPlugin {
  static final String NAME = "HarnessBinder";

  /** Told about each bound pod and its latency in nanos. */
  interface Listener {
    void bound(Pod bound, long latencyNanos);
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
    Pod bound = bound(pod);
    long latency = state.read(HarnessClock.KEY, HarnessClock.Start.class)
        .map(s -> System.nanoTime() - s.nanos()).orElse(-1L);
    onBound.bound(bound, latency);
    return Status.SUCCESS;
  }

  /** {@code assumed} as the API server returns it once bound (resourceVersion 2, Pending). */
  static Pod bound(Pod assumed) {
    ObjectMeta meta = new ObjectMetaBuilder(assumed.getMetadata()).withResourceVersion("2").build();
    PodStatus status = assumed.getStatus();
    if (status == null || !"Pending".equals(status.getPhase())) {
      status = new PodStatusBuilder(status == null ? new PodStatus() : status).withPhase("Pending")
          .build();
    }
    Pod bound = new Pod(assumed.getApiVersion(), assumed.getKind(), meta, assumed.getSpec(),
        status);
    assumed.getAdditionalProperties().forEach(bound::setAdditionalProperty);
    return bound;
  }

  /**
   * {@code bound} before it was bound (no {@code spec.nodeName}), for a listener that did not
   * hold the pod already: a shallow copy like {@link #bound}.
   */
  static Pod unbound(Pod bound) {
    PodSpec spec = io.berth.framework.AssumedPod.on(bound, null).getSpec();
    Pod unbound = new Pod(bound.getApiVersion(), bound.getKind(), bound.getMetadata(), spec,
        bound.getStatus());
    bound.getAdditionalProperties().forEach(unbound::setAdditionalProperty);
    return unbound;
  }
}
