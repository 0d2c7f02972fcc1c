package io.berth.bench.scheduler;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.StateData;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * A PreFilter that stamps the cycle's start time into CycleState, so the harness binder can
 * measure each pod's scheduling latency (cycle start to bound). Stateless; thread-safe.
 */
final class HarnessClock implements PreFilterPlugin {
  static final String NAME = "HarnessClock";
  static final String KEY = "HarnessClock/start";

  /** The cycle's start in nanoTime. */
  record Start(long nanos) implements StateData {
    @Override
    public StateData copy() {
      return this;
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    state.write(KEY, new Start(System.nanoTime()));
    return PreFilterResult.SUCCESS;
  }
}
