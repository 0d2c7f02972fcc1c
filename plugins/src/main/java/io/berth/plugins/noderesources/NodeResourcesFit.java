package io.berth.plugins.noderesources;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.SignFragment;
import io.berth.framework.PodSigners;
import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.Resource;
import io.berth.framework.ScorePlugin;
import io.berth.framework.StateData;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.berth.plugins.noderesources.NodeResourcesFitArgs.ScoringStrategy;
import io.berth.plugins.noderesources.ResourceScorers.ResourceScorer;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * kube-scheduler's NodeResourcesFit (v1.32): Filter rejects a node that lacks the pod count, cpu,
 * memory, ephemeral storage or a scalar resource the pod requests, with every insufficient reason
 * ("Too many pods", "Insufficient cpu", ...) and code Unschedulable (preemption may free room);
 * Score ranks nodes by the configured strategy (LeastAllocated by default, MostAllocated or
 * RequestedToCapacityRatio) over non-zero requests. PreFilter and PreScore run on the scheduling
 * thread and store the pod's requests in the CycleState; Filter and Score run on many threads at
 * once and only read it, the NodeInfo and this plugin, which is immutable after construction.
 */
public final class NodeResourcesFit
    implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions,
    SignPlugin {
  public static final String NAME = "NodeResourcesFit";
  /** Filter reason when the node already runs its maximum number of pods. */
  public static final String REASON_TOO_MANY_PODS = ResourceFit.TOO_MANY_PODS;
  /** Filter reasons for cpu, memory and ephemeral storage; scalars use "Insufficient " + name. */
  public static final String REASON_INSUFFICIENT_CPU = "Insufficient cpu";
  public static final String REASON_INSUFFICIENT_MEMORY = "Insufficient memory";
  public static final String REASON_INSUFFICIENT_EPHEMERAL_STORAGE =
      "Insufficient ephemeral-storage";

  /** The statuses rejecting a node for a single standard resource. */
  private static final Map<String, Status> SINGLE_REASON = Map.of(
      REASON_INSUFFICIENT_CPU, Status.unschedulable(REASON_INSUFFICIENT_CPU),
      REASON_INSUFFICIENT_MEMORY, Status.unschedulable(REASON_INSUFFICIENT_MEMORY),
      REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
      Status.unschedulable(REASON_INSUFFICIENT_EPHEMERAL_STORAGE));

  static final String PRE_FILTER_STATE_KEY = "PreFilter" + NAME;
  static final String PRE_SCORE_STATE_KEY = "PreScore" + NAME;

  // all fields immutable after construction: Filter and Score threads share them
  private final Set<String> ignoredResources;
  private final Set<String> ignoredResourceGroups;
  private final ResourceAllocationScorer scorer;

  private NodeResourcesFit(NodeResourcesFitArgs args) {
    this.ignoredResources = Set.copyOf(args.ignoredResources());
    this.ignoredResourceGroups = Set.copyOf(args.ignoredResourceGroups());
    ScoringStrategy strategy = args.scoringStrategy();
    ResourceScorer resourceScorer = switch (strategy.type()) {
      case NodeResourcesFitArgs.MOST_ALLOCATED ->
          ResourceScorers.mostAllocated(strategy.resources());
      case NodeResourcesFitArgs.REQUESTED_TO_CAPACITY_RATIO ->
          ResourceScorers.requestedToCapacityRatio(strategy.resources(), strategy.shape());
      default -> ResourceScorers.leastAllocated(strategy.resources());
    };
    this.scorer = new ResourceAllocationScorer(strategy.resources(), false, resourceScorer);
  }

  /** The {@link io.berth.framework.PluginFactory}: validates {@code args} as upstream does. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return new NodeResourcesFit(NodeResourcesFitArgs.parse(args));
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Feasibility and scores depend on the container requests and the overhead. */
  @Override
  public SignResult signPod(Pod pod) {
    return SignResult.of(new SignFragment(PodSigners.RESOURCES, PodSigners.resources(pod)));
  }

  /**
   * The pod's requests and the scalar resources to check, computed once per cycle; immutable
   * after PreFilter wrote it (the Resource is never mutated), so Filter threads share it.
   */
  record PreFilterState(Resource podRequest, List<String> scalarsToCheck) implements StateData {
    @Override
    public StateData copy() {
      return this; // never mutated after PreFilter
    }
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    PodInfo podInfo = PodInfo.of(pod);
    if (podInfo.parseError().isPresent()) {
      return PreFilterResult.of(Status.unresolvable(podInfo.parseError().get()));
    }
    Resource request = podInfo.requests();
    state.write(PRE_FILTER_STATE_KEY, new PreFilterState(request,
        ResourceFit.scalarsToCheck(request, ignoredResources, ignoredResourceGroups)));
    return PreFilterResult.SUCCESS;
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    PreFilterState pre = state.readOrElse(PRE_FILTER_STATE_KEY, PreFilterState.class, null);
    if (pre == null) {
      return Status.error(
          "error reading \"" + PRE_FILTER_STATE_KEY + "\" from cycleState: not found");
    }
    // a node with room and the common rejection (one of cpu, memory, ephemeral storage) allocate nothing: the list
    // of reasons is built only for the other rejections
    String sole = ResourceFit.soleReason(pre.podRequest(), pre.scalarsToCheck(), nodeInfo.podCount(),
        nodeInfo.requested(), nodeInfo.allocatable());
    if (sole == null) {
      return Status.SUCCESS;
    }
    if (sole != ResourceFit.SEVERAL) {
      // one shared instance per reason (cheaper to build and to count)
      Status shared = SINGLE_REASON.get(sole);
      if (shared != null) {
        return shared;
      }
    }
    List<InsufficientResource> insufficient = fits(pre, nodeInfo);
    return Status.unschedulable(insufficient.stream().map(InsufficientResource::reason)
        .toArray(String[]::new));
  }


  /** What {@code nodeInfo} lacks for the pod of {@code state}, in upstream's order. */
  static List<InsufficientResource> fits(PreFilterState state, NodeInfo nodeInfo) {
    return ResourceFit.insufficient(state.podRequest(), state.scalarsToCheck(),
        nodeInfo.podCount(), nodeInfo.requested(), nodeInfo.allocatable());
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
    ScorePreState pre = state.readOrElse(PRE_SCORE_STATE_KEY, ScorePreState.class, null);
    long[] podRequests = pre != null ? pre.sharedPodRequests() : podRequestsWithoutPreScore(pod);
    return scorer.score(nodeInfo, podRequests);
  }

  private long[] podRequestsWithoutPreScore(Pod pod) {
    PodInfo podInfo = PodInfo.of(pod);
    if (podInfo.parseError().isPresent()) {
      throw new StatusException(Status.error(podInfo.parseError().get()));
    }
    return scorer.podRequests(podInfo.requests(), podInfo.nonZeroRequests());
  }

  /**
   * As upstream v1.32 with scheduling queue hints on: a deleted assigned pod or a scaled-down pod
   * may free room; an added node, or a node whose allocatable grew, may now hold the pod.
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    return List.of(
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.POD,
                ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
            FitQueueingHints::afterPodEvent),
        new ClusterEventWithHint(
            new ClusterEvent(EventResource.NODE,
                ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
            FitQueueingHints::afterNodeChange));
  }
}
