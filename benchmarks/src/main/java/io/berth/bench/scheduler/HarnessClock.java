package io.berth.bench.scheduler;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.StateData;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A PreFilter that stamps the cycle's start time into CycleState, so the harness binder can
 * measure each pod's scheduling latency (cycle start to bound), and remembers each pod's first
 * attempt (for the latency from first attempt to bound, which includes backoff after preemption).
 * It reads nothing of the pod that affects placement, so it signs with no fragment (and does not
 * turn OpportunisticBatching off for the harness profile). Thread-safe: the first attempts live
 * in a concurrent map.
 */
final class HarnessClock implements PreFilterPlugin, SignPlugin {
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
  public SignResult signPod(Pod pod) {
    return SignResult.none();
  }

  // pod uid -> nanoTime of its first PreFilter; concurrent map
  private final Map<String, Long> firstAttempt = new ConcurrentHashMap<>();

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    long now = System.nanoTime();
    state.write(KEY, new Start(now));
    firstAttempt.putIfAbsent(pod.getMetadata().getUid(), now);
    return PreFilterResult.SUCCESS;
  }

  /** Nanos since the pod's first attempt, forgetting it; -1 if it never had one. */
  long sinceFirstAttempt(Pod pod) {
    Long first = firstAttempt.remove(pod.getMetadata().getUid());
    return first == null ? -1 : System.nanoTime() - first;
  }
}
