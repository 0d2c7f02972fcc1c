package io.berth.plugins.podtopologyspread;

import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FilterPlugin;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreFilterResult;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kube-scheduler v1.32's PodTopologySpread: spreads pods matching a selector evenly across
 * topology domains (zones, hosts, any node label). Hard constraints (whenUnsatisfiable
 * DoNotSchedule) are enforced by PreFilter/Filter, with AddPod/RemovePod for nominated pods and
 * preemption; soft ones (ScheduleAnyway) by PreScore/Score/NormalizeScore. A pod without
 * constraints gets the configured default constraints (by default the system ones: hostname
 * maxSkew 3 and zone maxSkew 5, both ScheduleAnyway), counting the pods selected by the Services
 * and the controller that select it.
 *
 * <p>One instance per profile, created by {@link #create}; the runtime calls PreFilter, PreScore
 * and NormalizeScore on the scheduling thread and Filter and Score on many threads at once. The
 * plugin itself holds immutable configuration and the thread-safe {@link CountingMemo} and
 * {@link MatchCountMemo} through which PreFilter and PreScore reuse the per-node counts of nodes
 * unchanged since an earlier cycle; per-cycle data lives in {@link CycleState} ({@code PreFilterPodTopologySpread},
 * {@code PreScorePodTopologySpread}).
 */
public final class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin,
    ScorePlugin, EnqueueExtensions, SignPlugin {
  public static final String NAME = "PodTopologySpread";
  /** Filter reason when placing the pod on the node would exceed a constraint's maxSkew. */
  public static final String ERR_REASON_CONSTRAINTS_NOT_MATCH =
      "node(s) didn't match pod topology spread constraints";
  /** Filter reason when the node lacks one of the constraints' topology keys. */
  public static final String ERR_REASON_NODE_LABEL_NOT_MATCH =
      ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)";

  /** The constraints used when defaultingType is System (upstream's systemDefaultConstraints). */
  static final List<TopologySpreadConstraint> SYSTEM_DEFAULT_CONSTRAINTS = List.of(
      new TopologySpreadConstraintBuilder().withTopologyKey(SpreadConstraint.LABEL_HOSTNAME)
          .withWhenUnsatisfiable(ConstraintCompiler.SCHEDULE_ANYWAY).withMaxSkew(3).build(),
      new TopologySpreadConstraintBuilder().withTopologyKey(SpreadConstraint.LABEL_TOPOLOGY_ZONE)
          .withWhenUnsatisfiable(ConstraintCompiler.SCHEDULE_ANYWAY).withMaxSkew(5).build());

  private final Handle handle;
  private final boolean systemDefaulted;
  private final boolean hasDefaultConstraints;
  private final ConstraintSource source;
  private final SpreadHints hints;
  private final PreFilterExtensions extensions = new Extensions();
  private final ScoreExtensions scoreExtensions = this::normalizeScore;
  // thread-safe (see CountingMemo): PreFilter's per-node counts carried across cycles
  private final CountingMemo memo = new CountingMemo();
  // thread-safe (see MatchCountMemo): PreScore's per-node matching pod counts across cycles
  private final MatchCountMemo preScoreMemo = new MatchCountMemo();

  private PodTopologySpread(Handle handle, boolean systemDefaulted, boolean hasDefaultConstraints,
      ConstraintSource source) {
    this.handle = handle;
    this.systemDefaulted = systemDefaulted;
    this.hasDefaultConstraints = hasDefaultConstraints;
    this.source = source;
    this.hints = new SpreadHints(source);
  }

  /**
   * The {@link io.berth.framework.PluginFactory}: parses and validates {@code args} (throwing
   * {@link IllegalArgumentException} naming the field) and, when default constraints apply,
   * obtains the Service, ReplicationController, ReplicaSet and StatefulSet listers.
   */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    PodTopologySpreadArgs parsed = PodTopologySpreadArgs.parse(args);
    List<TopologySpreadConstraint> defaults = parsed.systemDefaulting()
        ? SYSTEM_DEFAULT_CONSTRAINTS : parsed.defaultConstraints();
    Optional<DefaultSelector> selector = Optional.empty();
    if (!defaults.isEmpty()) {
      selector = Optional.of(new DefaultSelector(handle.lister(Service.class),
          handle.lister(ReplicationController.class), handle.lister(ReplicaSet.class),
          handle.lister(StatefulSet.class)));
    }
    return new PodTopologySpread(handle, parsed.systemDefaulting(), !defaults.isEmpty(),
        new ConstraintSource(defaults, selector));
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Spreading depends on where other pods are: pods with constraints are unsignable, and so is
   * every pod when the profile has default constraints (System defaulting, or a non-empty List).
   */
  @Override
  public SignResult signPod(Pod pod) {
    if (pod.getSpec() != null && pod.getSpec().getTopologySpreadConstraints() != null
        && !pod.getSpec().getTopologySpreadConstraints().isEmpty()) {
      return SignResult.unsignable("pods with topology constraints are not signable");
    }
    if (hasDefaultConstraints) {
      return SignResult.unsignable("pods with default topology constraints are not signable");
    }
    return SignResult.none();
  }

  @Override
  public PreFilterResult preFilter(CycleState state, Pod pod, List<NodeInfo> nodes) {
    List<SpreadConstraint> constraints;
    try {
      constraints = source.forPod(pod, ConstraintCompiler.DO_NOT_SCHEDULE);
    } catch (IllegalArgumentException e) {
      return PreFilterResult.of(Status.unresolvable(e.getMessage()));
    }
    if (constraints.isEmpty()) {
      return PreFilterResult.of(Status.skip());
    }
    Tally tally = memo.acquire(CountingMemo.keyOf(pod, constraints), constraints.size());
    try {
      state.write(PreFilterState.KEY,
          PreFilterState.count(pod, constraints, nodes, handle.parallelizer(), tally));
    } finally {
      memo.release(tally);
    }
    return PreFilterResult.SUCCESS;
  }

  @Override
  public Optional<PreFilterExtensions> preFilterExtensions() {
    return Optional.of(extensions);
  }

  @Override
  public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
    PreFilterState s;
    try {
      s = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
    } catch (StatusException e) {
      return e.status();
    }
    Optional<Node> node = nodeInfo.node();
    return node.isPresent() ? s.filter(pod, node.get()) : Status.error("node not found");
  }

  @Override
  public Status preScore(CycleState state, Pod pod, List<NodeInfo> nodes) {
    List<NodeInfo> allNodes = handle.snapshotLister().list();
    if (allNodes.isEmpty()) {
      return Status.skip();
    }
    List<SpreadConstraint> constraints;
    try {
      constraints = source.forPod(pod, ConstraintCompiler.SCHEDULE_ANYWAY);
    } catch (IllegalArgumentException e) {
      return Status.unresolvable(e.getMessage());
    }
    if (constraints.isEmpty()) {
      return Status.skip();
    }
    // Only system defaults tolerate nodes lacking a key, so that nodes without a zone label still
    // get hostname spreading.
    boolean requireAllTopologies = ConstraintSource.hasOwnConstraints(pod) || !systemDefaulted;
    state.write(PreScoreState.KEY, PreScoreState.compute(pod, constraints, nodes, allNodes,
        requireAllTopologies, handle.parallelizer(), preScoreMemo));
    return Status.SUCCESS;
  }

  @Override
  public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
    return state.readOrFail(PreScoreState.KEY, PreScoreState.class).score(pod, nodeInfo);
  }

  @Override
  public Optional<ScoreExtensions> scoreExtensions() {
    return Optional.of(scoreExtensions);
  }

  private Status normalizeScore(CycleState state, Pod pod, List<NodeScore> scores) {
    try {
      state.readOrFail(PreScoreState.KEY, PreScoreState.class).normalize(scores);
      return Status.SUCCESS;
    } catch (StatusException e) {
      return e.status();
    }
  }

  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    // With queueing hints (on by default in v1.32) a new toleration on the rejected pod matters
    // too, for constraints with nodeTaintsPolicy Honor.
    long podActions = ActionType.ADD | ActionType.UPDATE_POD_LABEL
        | ActionType.UPDATE_POD_TOLERATION | ActionType.DELETE;
    long nodeActions = ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL
        | ActionType.UPDATE_NODE_TAINT;
    return List.of(
        new ClusterEventWithHint(new ClusterEvent(EventResource.POD, podActions),
            hints::afterPodChange),
        new ClusterEventWithHint(new ClusterEvent(EventResource.NODE, nodeActions),
            hints::afterNodeChange));
  }

  /** AddPod/RemovePod: keep the PreFilter counts in step with simulated pods. */
  private static final class Extensions implements PreFilterExtensions {
    @Override
    public Status addPod(CycleState state, Pod podToSchedule, PodInfo podToAdd,
        NodeInfo nodeInfo) {
      return update(state, podToSchedule, podToAdd, nodeInfo, 1);
    }

    @Override
    public Status removePod(CycleState state, Pod podToSchedule, PodInfo podToRemove,
        NodeInfo nodeInfo) {
      return update(state, podToSchedule, podToRemove, nodeInfo, -1);
    }

    private static Status update(CycleState state, Pod podToSchedule, PodInfo changed,
        NodeInfo nodeInfo, int delta) {
      PreFilterState s;
      try {
        s = state.readOrFail(PreFilterState.KEY, PreFilterState.class);
      } catch (StatusException e) {
        return e.status();
      }
      s.update(changed.pod(), podToSchedule, nodeInfo.node().orElse(null), delta);
      return Status.SUCCESS;
    }
  }
}
