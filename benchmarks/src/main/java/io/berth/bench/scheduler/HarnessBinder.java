package io.berth.bench.scheduler;

import io.berth.framework.BindPlugin;
import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * Bind for the in-process harness: instead of calling an API server it hands the bound pod to
 * {@code onBound}, which feeds it back through the scheduler's pod handler as the informer's
 * update event would (confirming the assumed pod in the cache). Thread-safe if {@code onBound} is.
 */
final class HarnessBinder implements BindPlugin {
  static final String NAME = "HarnessBinder";

  /** Told about each bound pod: the pod before and after binding, and its latency in nanos. */
  interface Listener {
    void bound(Pod unbound, Pod bound, long latencyNanos);
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
    Pod unbound = new PodBuilder(pod).editSpec().withNodeName(null).endSpec().build();
    Pod bound = new PodBuilder(pod).editMetadata().withResourceVersion("2").endMetadata()
        .editStatus().withPhase("Pending").endStatus().build();
    long latency = state.read(HarnessClock.KEY, HarnessClock.Start.class)
        .map(s -> System.nanoTime() - s.nanos()).orElse(-1L);
    onBound.bound(unbound, bound, latency);
    return Status.SUCCESS;
  }
}
