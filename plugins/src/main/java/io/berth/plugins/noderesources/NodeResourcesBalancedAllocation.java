package io.berth.plugins.noderesources;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.CycleState;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's NodeResourcesBalancedAllocation (v1.36): favors nodes whose balance of the
 * configured resources (cpu and memory by default) the pod improves. With b = (1 - standard
 * deviation of requested/allocatable fractions) * 100, a node scores 50 + (50 + b(with the pod) -
 * b(without it)) / 2. As upstream, it counts plain requests ({@code useRequested}), not the
 * non-zero defaults NodeResourcesFit scores with, and skips a pod that requests none of the
 * resources (PreScore returns Skip; Score without PreScore gives 0: kubernetes#129138). PreScore
 * runs on the scheduling thread and stores the pod's requests; Score runs on many threads at once
 * and only reads; the plugin is immutable after construction.
 */
public final class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin, SignPlugin {
  public static final String NAME = "NodeResourcesBalancedAllocation";

  static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

  private final ResourceAllocationScorer scorer;

  private NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs args) {
    this.scorer = new ResourceAllocationScorer(args.resources(), true, ResourceScorers.balanced());
  }

  /** The {@link io.berth.framework.PluginFactory}: validates {@code args} as upstream does. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return new NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs.parse(args));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Scores depend on the container requests and the overhead. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.RESOURCES, PodSigners.resources(pod)));
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    PodInfo podInfo = PodInfo.of(pod);
    if (podInfo.parseError().isPresent()) {
      return Status.error(podInfo.parseError().get());
    }
    long[] podRequests = scorer.podRequests(podInfo.requests(), podInfo.nonZeroRequests());
    if (isBestEffort(podRequests)) {
      return Status.skip();
    }
    state.write(PRE_SCORE_STATE_KEY, new ScorePreState(podRequests));
    return Status.SUCCESS;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    ScorePreState pre = state.readOrElse(PRE_SCORE_STATE_KEY, ScorePreState.class, null);
    long[] podRequests = pre != null ? pre.sharedPodRequests() : podRequestsWithoutPreScore(pod);
    if (isBestEffort(podRequests)) {
      return 0;
    }
    return scorer.score(nodeInfo, podRequests);
  }

  private long[] podRequestsWithoutPreScore(Pod pod) {
    PodInfo podInfo = PodInfo.of(pod);
    if (podInfo.parseError().isPresent()) {
      throw new StatusException(Status.error(podInfo.parseError().get()));
    }
    return scorer.podRequests(podInfo.requests(), podInfo.nonZeroRequests());
  }

  /** True when the pod requests none of the scored resources (upstream's isBestEffortPod). */
  private static boolean isBestEffort(long[] podRequests) {
    for (long request : podRequests) {
      if (request != 0) {
        return false;
      }
    }
    return true;
  }
}
