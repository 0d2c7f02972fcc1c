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
 * kube-scheduler's NodeResourcesBalancedAllocation (v1.32): favors nodes whose configured
 * resources (cpu and memory by default) would be used in equal proportion with the pod, scoring
 * (1 - standard deviation of requested/allocatable fractions) * 100. As upstream, it counts plain
 * requests ({@code useRequested}), not the non-zero defaults NodeResourcesFit scores with. PreScore
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
    state.write(PRE_SCORE_STATE_KEY, new ScorePreState(
        scorer.podRequests(podInfo.requests(), podInfo.nonZeroRequests())));
    return Status.SUCCESS;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    var pre = state.read(PRE_SCORE_STATE_KEY, ScorePreState.class);
    return scorer.score(nodeInfo, pre.isPresent() ? pre.get().sharedPodRequests()
        : podRequestsWithoutPreScore(pod));
  }

  private long[] podRequestsWithoutPreScore(Pod pod) {
    PodInfo podInfo = PodInfo.of(pod);
    if (podInfo.parseError().isPresent()) {
      throw new StatusException(Status.error(podInfo.parseError().get()));
    }
    return scorer.podRequests(podInfo.requests(), podInfo.nonZeroRequests());
  }
}
