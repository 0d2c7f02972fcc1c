package io.berth.plugins.defaultpreemption;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EnqueueExtensions;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.Plugin;
import io.berth.framework.PodInfo;
import io.berth.framework.PostFilterPlugin;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreEnqueuePlugin;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * until that is done. Runs on the scheduling thread; the dry run fans out on the handle's
 * parallelizer. Thread-safe: immutable after construction apart from the preparation's
 * concurrent set of preempting pods.
 */
public final class DefaultPreemption
    implements PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions {
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

  private static final Logger LOG = LoggerFactory.getLogger(DefaultPreemption.class);

  private final Handle handle;
  private final DefaultPreemptionArgs args;
  private final ObjectLister<PodDisruptionBudget> pdbLister;
  /** Given the number of potential nodes n, where in [0, n) the dry run starts. */
  private final IntUnaryOperator offsetSource;
  private final VictimSelector victimSelector;
  private final CandidateSelection candidateSelection;
  private final CandidatePreparation preparation;
  private final boolean asyncPreemption;

  private DefaultPreemption(DefaultPreemptionArgs args, Handle handle,
      IntUnaryOperator offsetSource, Clock clock) {
    this.handle = handle;
    this.args = args;
    this.pdbLister = handle.lister(PodDisruptionBudget.class);
    this.offsetSource = offsetSource;
    VictimOrdering ordering = new VictimOrdering(clock);
    this.victimSelector = new VictimSelector(handle, ordering);
    this.candidateSelection = new CandidateSelection(ordering);
    this.asyncPreemption = handle.featureGates().enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION);
    this.preparation = new CandidatePreparation(handle, clock, asyncPreemption);
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
    PostFilterResult result = preempt(state, pod, filteredNodeStatus);
    Status status = result.status();
    String message = status.message();
    if (message.isEmpty()) {
      return result;
    }
    Status prefixed = status.code() == Code.ERROR ? Status.error(MESSAGE_PREFIX + message)
        : Status.of(status.code(), MESSAGE_PREFIX + message);
    return new PostFilterResult(prefixed, result.nominatingInfo());
  }

  /**
   * With asynchronous preemption, a pod whose victims are still being preempted waits in the
   * unschedulable pool (UnschedulableAndUnresolvable) so that it does not preempt again; without
   * it, always Success.
   */
  @Override
  public Status preEnqueue(Pod pod) {
    if (asyncPreemption && preparation.isRunningPreemption(pod.getMetadata().getUid())) {
      return Status.unresolvable(REASON_WAITING_FOR_PREEMPTION);
    }
    return Status.SUCCESS;
  }

  /**
   * As upstream v1.32: events only with asynchronous preemption, a pod deletion whose hint is
   * always Skip. The plugins that rejected the pod (which preemption resolves) decide when it is
   * requeued; the registration only tells the queue that the pod gated here cares about deletions.
   */
  @Override
  public List<ClusterEventWithHint> eventsToRegister() {
    if (!asyncPreemption) {
      return List.of();
    }
    return List.of(new ClusterEventWithHint(
        new ClusterEvent(EventResource.POD, ActionType.DELETE),
        (pod, oldObj, newObj) -> QueueingHint.QUEUE_SKIP));
  }

  private PostFilterResult preempt(CycleState state, Pod pod, NodeToStatus m) {
    String nominated = nominatedNodeName(pod);
    Optional<String> ineligible = ineligibility(pod, m.get(nominated));
    if (ineligible.isPresent()) {
      LOG.debug("Pod {} is not eligible for preemption: {}", key(pod), ineligible.get());
      return PostFilterResult.of(Status.unschedulable(ineligible.get()));
    }
    List<NodeInfo> allNodes = handle.snapshotLister().list();
    if (allNodes.isEmpty()) {
      return PostFilterResult.of(Status.error("no nodes available"));
    }
    DryRunPreemption.Result found = findCandidates(state, pod, allNodes, m);
    if (found.candidates().isEmpty()) {
      if (!found.errors().isEmpty()) {
        return PostFilterResult.of(Status.error(FitErrorMessage.aggregate(found.errors())));
      }
      LOG.debug("No preemption candidate for pod {}; preemption is not helpful", key(pod));
      String msg = FitErrorMessage.of(allNodes.size(), found.nodeStatuses(),
          Status.unresolvable(REASON_NOT_HELPFUL));
      // Clears the pod's nomination, if any: no node can take it even with preemption.
      return new PostFilterResult(Status.unschedulable(msg), NominatingInfo.override(""));
    }
    Optional<Candidate> best = candidateSelection.pick(found.candidates());
    if (best.isEmpty() || best.get().nodeName().isEmpty()) {
      return PostFilterResult.of(Status.unschedulable("no candidate node for preemption"));
    }
    LOG.debug("Preempting {} pod(s) on node {} for pod {}", best.get().victims().size(),
        best.get().nodeName(), key(pod));
    report(state, found.candidates(), best.get());
    if (asyncPreemption) {
      preparation.prepareAsync(best.get(), pod);
    } else {
      Status prepared = preparation.prepare(best.get(), pod);
      if (!prepared.isSuccess()) {
        return PostFilterResult.of(prepared);
      }
    }
    return new PostFilterResult(Status.SUCCESS, NominatingInfo.override(best.get().nodeName()));
  }

  /** Leaves the candidates and the chosen victims for the scheduler's explanations. */
  private static void report(CycleState state, List<Candidate> candidates, Candidate best) {
    List<io.berth.framework.PreemptionReport.Candidate> cs = new java.util.ArrayList<>();
    for (Candidate c : candidates) {
      cs.add(new io.berth.framework.PreemptionReport.Candidate(c.nodeName(), c.victims().size(),
          c.numPdbViolations()));
    }
    List<String> victims = best.victims().stream()
        .map(v -> v.getMetadata().getNamespace() + "/" + v.getMetadata().getName()).toList();
    state.write(io.berth.framework.PreemptionReport.KEY, new io.berth.framework.PreemptionReport(
        cs, Optional.of(best.nodeName()), victims));
  }

  /** Nodes whose filter status was Unschedulable, dry-run from a random offset. */
  private DryRunPreemption.Result findCandidates(CycleState state, Pod pod,
      List<NodeInfo> allNodes, NodeToStatus m) {
    List<NodeInfo> potential = new ArrayList<>();
    for (NodeInfo n : allNodes) {
      if (m.get(n.nodeName()).code() == Code.UNSCHEDULABLE) {
        potential.add(n);
      }
    }
    if (potential.isEmpty()) {
      LOG.debug("Preemption will not help schedule pod {} on any node", key(pod));
      return new DryRunPreemption.Result(List.of(), Map.of(), List.of());
    }
    int offset = offsetSource.applyAsInt(potential.size());
    return dryRunPreemption(state, pod, potential, pdbLister.list(), offset,
        calculateNumCandidates(potential.size()));
  }

  DryRunPreemption.Result dryRunPreemption(CycleState state, Pod pod, List<NodeInfo> potential,
      List<PodDisruptionBudget> pdbs, int offset, int candidatesNum) {
    return DryRunPreemption.run(handle.parallelizer(), victimSelector, state, pod, potential,
        pdbs, offset, candidatesNum);
  }

  VictimSelector.Selection selectVictimsOnNode(CycleState state, Pod pod, NodeInfo nodeInfo,
      List<PodDisruptionBudget> pdbs) {
    return victimSelector.select(state, pod, nodeInfo, pdbs);
  }

  Optional<Candidate> selectCandidate(List<Candidate> candidates) {
    return candidateSelection.pick(candidates);
  }

  /**
   * How many candidates the dry run should find: the configured percentage of the potential
   * nodes, at least the configured absolute number, at most all of them.
   */
  int calculateNumCandidates(int numNodes) {
    int n = (int) ((long) numNodes * args.minCandidateNodesPercentage() / 100);
    if (n < args.minCandidateNodesAbsolute()) {
      n = args.minCandidateNodesAbsolute();
    }
    return Math.min(n, numNodes);
  }

  /**
   * Why the pod may not preempt, as upstream's {@code PodEligibleToPreemptOthers}: its
   * preemptionPolicy is Never; or it is nominated to a node (that filters did not rule out for
   * good) where a lower-priority pod is still terminating because of preemption, i.e. its earlier
   * victims are not gone yet.
   */
  Optional<String> ineligibility(Pod pod, Status nominatedNodeStatus) {
    if (pod.getSpec() != null && "Never".equals(pod.getSpec().getPreemptionPolicy())) {
      return Optional.of(REASON_PREEMPT_NEVER);
    }
    String nominated = nominatedNodeName(pod);
    if (nominated.isEmpty()
        || nominatedNodeStatus.code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
      return Optional.empty();
    }
    Optional<NodeInfo> node = handle.snapshotLister().get(nominated);
    if (node.isPresent()) {
      int priority = PrioritySort.podPriority(pod);
      for (PodInfo p : node.get().pods()) {
        if (PrioritySort.podPriority(p.pod()) < priority && terminatingByPreemption(p.pod())) {
          return Optional.of(REASON_TERMINATING_ON_NOMINATED);
        }
      }
    }
    return Optional.empty();
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

  private static String nominatedNodeName(Pod pod) {
    String n = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return n == null ? "" : n;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
