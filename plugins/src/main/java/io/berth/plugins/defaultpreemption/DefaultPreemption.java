package io.berth.plugins.defaultpreemption;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.GroupPreemptionPlugin;
import io.berth.framework.Handle;
import io.berth.framework.PodGroupRef;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeToStatus;
import io.berth.framework.Plugin;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntUnaryOperator;

/**
 * kube-scheduler's DefaultPreemption (v1.32): the PostFilter plugin
 * that, when no node fits a pod, evicts pods of lower priority to make room and nominates the pod
 * to that node. Steps, as upstream's {@code Evaluator.Preempt}: check the pod may preempt at all
 * (not {@code preemptionPolicy: Never}; not still waiting for earlier victims on its nominated
 * node); dry-run preemption on every node whose filter status was Unschedulable, starting at a
 * random offset and stopping once enough candidates are found ({@link DefaultPreemptionArgs});
 * pick the candidate that disturbs least; delete its victims and clear lower-priority nominations
 * to that node; return Success with the node as nomination. Every non-empty message is prefixed
 * with {@code "preemption: "}.
 *
 * <p>With the {@code SchedulerAsyncPreemption} feature gate the victims are preempted in the
 * background (upstream's {@code prepareCandidateAsync}) and PreEnqueue holds the preemptor back
 * until that is done. The steps are {@link PreemptionEvaluator}'s with
 * {@link VictimPolicy#LOWER_PRIORITY}, the machinery CapacityScheduling shares. Runs on the
 * scheduling thread; the dry run fans out on the handle's parallelizer. Thread-safe: immutable
 * after construction apart from the preparation's concurrent set of preempting pods.
 */
public final class DefaultPreemption
    implements PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions, GroupPreemptionPlugin {
  public static final String NAME = "DefaultPreemption";
  /** A node where no pod has a lower priority than the preemptor. */
  public static final String REASON_NO_VICTIMS = "No preemption victims found for incoming pod";
  /** Every node preemption was not tried on, in the no-candidate message. */
  public static final String REASON_NOT_HELPFUL = "Preemption is not helpful for scheduling";
  public static final String REASON_PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never.";
  public static final String REASON_TERMINATING_ON_NOMINATED =
      "not eligible due to a terminating pod on the nominated node.";
  static final String MESSAGE_PREFIX = "preemption: ";
  /** PreEnqueue's reason while the pod's asynchronous preemption is still running. */
  public static final String REASON_WAITING_FOR_PREEMPTION =
      "waiting for the preemption for this pod to be finished";

  private final PreemptionEvaluator evaluator;
  private final Handle handle;
  private final GroupPreemption groupPreemption;

  private DefaultPreemption(DefaultPreemptionArgs args, Handle handle,
      IntUnaryOperator offsetSource, Clock clock) {
    this.handle = handle;
    this.evaluator = new PreemptionEvaluator(NAME, handle, args.minCandidateNodesPercentage(),
        args.minCandidateNodesAbsolute(), VictimPolicy.LOWER_PRIORITY, offsetSource, clock);
    this.groupPreemption = new GroupPreemption(handle, evaluator.preparation());
  }

  /** The {@link io.berth.framework.PluginFactory}: validates {@code args} as upstream does. */
  public static Plugin create(Map<String, Object> args, Handle handle) {
    return create(args, handle, n -> ThreadLocalRandom.current().nextInt(n), Clock.systemUTC());
  }

  /** For tests: a fixed dry-run offset source and clock. */
  static DefaultPreemption create(Map<String, Object> args, Handle handle,
      IntUnaryOperator offsetSource, Clock clock) {
    return new DefaultPreemption(DefaultPreemptionArgs.parse(args), handle, offsetSource, clock);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public PostFilterResult postFilter(CycleState state, Pod pod, NodeToStatus filteredNodeStatus) {
    handle.preemptionMetrics().attempt();
    PostFilterResult result = evaluator.preempt(state, pod, filteredNodeStatus);
    Status status = result.status();
    String message = status.message();
    if (message.isEmpty()) {
      return result;
    }
    Status prefixed = status.code() == Code.ERROR ? Status.error(MESSAGE_PREFIX + message)
        : Status.of(status.code(), MESSAGE_PREFIX + message);
    return new PostFilterResult(prefixed, result.nominatingInfo());
  }

  /** Preemption for a whole pod group: see {@link GroupPreemption}. */
  @Override
  public Status preemptForGroup(PodGroupRef group, List<Pod> members,
      GroupFeasibility feasibility) {
    handle.preemptionMetrics().attempt();
    Status s = groupPreemption.preempt(group, members, feasibility);
    return s.isSuccess() || s.code() == Code.ERROR ? s
        : Status.of(s.code(), MESSAGE_PREFIX + s.message()).withPlugin(NAME);
  }

  /**
   * With asynchronous preemption, a pod whose victims are still being preempted waits in the
   * unschedulable pool (UnschedulableAndUnresolvable) so that it does not preempt again; without
   * it, always Success.
   */
  @Override
  public Status preEnqueue(Pod pod) {
    return evaluator.preEnqueue(pod);
  }

  /**
   * As upstream v1.32: events only with asynchronous preemption, a pod deletion whose hint is
   * always Skip. The plugins that rejected the pod (which preemption resolves) decide when it is
   * requeued; the registration only tells the queue that the pod gated here cares about deletions.
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    if (!evaluator.asynchronous()) {
      return List.of();
    }
    return List.of(new ClusterEventWithHint(
        new ClusterEvent(EventResource.POD, ActionType.DELETE),
        (pod, oldObj, newObj) -> QueueingHint.QUEUE_SKIP));
  }

  DryRunPreemption.Result dryRunPreemption(CycleState state, Pod pod, List<NodeInfo> potential,
      List<PodDisruptionBudget> pdbs, int offset, int candidatesNum) {
    return evaluator.dryRunPreemption(state, pod, potential, pdbs, offset, candidatesNum);
  }

  VictimSelector.Selection selectVictimsOnNode(CycleState state, Pod pod, NodeInfo nodeInfo,
      List<PodDisruptionBudget> pdbs) {
    return evaluator.selectVictimsOnNode(state, pod, nodeInfo, pdbs);
  }

  Optional<Candidate> selectCandidate(List<Candidate> candidates) {
    return evaluator.selectCandidate(candidates);
  }

  int calculateNumCandidates(int numNodes) {
    return evaluator.calculateNumCandidates(numNodes);
  }

  /** As {@link PreemptionEvaluator}'s eligibility check, with an empty cycle state. */
  Optional<String> ineligibility(Pod pod, Status nominatedNodeStatus) {
    return evaluator.ineligibility(new CycleState(), pod, nominatedNodeStatus);
  }

  /** Being deleted and marked {@code DisruptionTarget=True} by the scheduler's preemption. */
  static boolean terminatingByPreemption(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() == null || pod.getStatus() == null
        || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if (CandidatePreparation.DISRUPTION_TARGET.equals(c.getType())) {
        return "True".equals(c.getStatus())
            && CandidatePreparation.REASON_PREEMPTION_BY_SCHEDULER.equals(c.getReason());
      }
    }
    return false;
  }

}
