package io.berth.plugins.defaultpreemption;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.PodInfo;
import io.berth.framework.PostFilterResult;
import io.berth.framework.PreemptionReport;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
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
 * The preemption machinery a PostFilter plugin shares, as upstream's {@code preemption.Evaluator}: check the pod
 * may preempt at all (not {@code preemptionPolicy: Never}; not still waiting for earlier victims on its nominated
 * node); dry-run preemption on every node whose filter status was Unschedulable, starting at a random offset and
 * stopping once enough candidates are found; pick the candidate that disturbs least; delete its victims (honouring
 * PodDisruptionBudgets as far as possible) and clear lower-priority nominations to that node; return Success with
 * the node as nomination. A {@link VictimPolicy} decides which pods may be victims and what else must hold:
 * {@link DefaultPreemption} uses {@link VictimPolicy#LOWER_PRIORITY}, CapacityScheduling its quota rules. With the
 * {@code SchedulerAsyncPreemption} gate the victims are preempted in the background and {@link #preEnqueue} holds
 * the preemptor back until that is done. Created by a plugin factory, called on the scheduling thread; the dry run
 * fans out on the handle's parallelizer. Thread-safe: immutable apart from the preparation's concurrent set.
 */
public final class PreemptionEvaluator {
  private static final Logger LOG = LoggerFactory.getLogger(PreemptionEvaluator.class);

  private final Handle handle;
  private final int minCandidateNodesPercentage;
  private final int minCandidateNodesAbsolute;
  private final VictimPolicy policy;
  private final ObjectLister<PodDisruptionBudget> pdbLister;
  /** Given the number of potential nodes n, where in [0, n) the dry run starts. */
  private final IntUnaryOperator offsetSource;
  private final VictimSelector victimSelector;
  private final CandidateSelection candidateSelection;
  private final CandidatePreparation preparation;
  private final boolean asyncPreemption;

  PreemptionEvaluator(String pluginName, Handle handle, int minCandidateNodesPercentage,
      int minCandidateNodesAbsolute, VictimPolicy policy, IntUnaryOperator offsetSource, Clock clock) {
    this.handle = handle;
    this.minCandidateNodesPercentage = minCandidateNodesPercentage;
    this.minCandidateNodesAbsolute = minCandidateNodesAbsolute;
    this.policy = policy;
    this.pdbLister = handle.lister(PodDisruptionBudget.class);
    this.offsetSource = offsetSource;
    VictimOrdering ordering = new VictimOrdering(clock);
    this.victimSelector = new VictimSelector(handle, ordering, policy);
    this.candidateSelection = new CandidateSelection(ordering, policy);
    this.asyncPreemption = handle.featureGates().enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION);
    this.preparation = new CandidatePreparation(handle, pluginName, clock, asyncPreemption);
  }

  /**
   * An evaluator for the plugin {@code pluginName} (it rejects victims waiting at Permit); asks for the PDB lister,
   * so call it from the plugin's factory. The candidate numbers are DefaultPreemptionArgs' (validated by the caller).
   */
  public static PreemptionEvaluator create(String pluginName, Handle handle, int minCandidateNodesPercentage,
      int minCandidateNodesAbsolute, VictimPolicy policy) {
    return new PreemptionEvaluator(pluginName, handle, minCandidateNodesPercentage, minCandidateNodesAbsolute,
        policy, n -> ThreadLocalRandom.current().nextInt(n), Clock.systemUTC());
  }

  /** Leaves the candidates and the chosen victims for the scheduler's explanations. */
  private static void report(CycleState state, List<Candidate> candidates, Candidate best) {
    List<PreemptionReport.Candidate> cs = new ArrayList<>();
    for (Candidate c : candidates) {
      cs.add(new PreemptionReport.Candidate(c.nodeName(), c.victims().size(), c.numPdbViolations()));
    }
    List<String> victims = best.victims().stream()
        .map(v -> v.getMetadata().getNamespace() + "/" + v.getMetadata().getName()).toList();
    state.write(PreemptionReport.KEY, new PreemptionReport(cs, Optional.of(best.nodeName()), victims));
  }

  /** The victim preparation this evaluator uses (group preemption shares its running set). */
  CandidatePreparation preparation() {
    return preparation;
  }

  /** Whether victims are preempted in the background (the SchedulerAsyncPreemption gate). */
  public boolean asynchronous() {
    return asyncPreemption;
  }

  /**
   * With asynchronous preemption, a pod whose victims are still being preempted waits in the unschedulable pool
   * (UnschedulableAndUnresolvable) so that it does not preempt again; otherwise Success.
   */
  public Status preEnqueue(Pod pod) {
    if (asyncPreemption && preparation.isRunningPreemption(pod.getMetadata().getUid())) {
      return Status.unresolvable(DefaultPreemption.REASON_WAITING_FOR_PREEMPTION);
    }
    return Status.SUCCESS;
  }

  /**
   * Preempts for {@code pod}, which fits on no node ({@code m} holds the nodes' statuses): Success with the
   * nominated node, or why not (the caller adds its message prefix). Does not count the attempt.
   */
  public PostFilterResult preempt(CycleState state, Pod pod, NodeToStatus m) {
    String nominated = nominatedNodeName(pod);
    // no lookup for a pod nominated nowhere (ineligibility does not read the status then): a lookup by name would
    // build the map's index, which the walk over every node below does without
    Optional<String> ineligible = ineligibility(state, pod,
        nominated.isEmpty() ? m.absentNodesStatus() : m.get(nominated));
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
          Status.unresolvable(DefaultPreemption.REASON_NOT_HELPFUL));
      // Clears the pod's nomination, if any: no node can take it even with preemption.
      return new PostFilterResult(Status.unschedulable(msg), NominatingInfo.override(""));
    }
    Optional<Candidate> best = candidateSelection.pick(found.candidates());
    if (best.isEmpty() || best.get().nodeName().isEmpty()) {
      return PostFilterResult.of(Status.unschedulable("no candidate node for preemption"));
    }
    LOG.debug("Preempting {} pod(s) on node {} for pod {}", best.get().victims().size(),
        best.get().nodeName(), key(pod));
    policy.preempting(pod, best.get().nodeName(), best.get().victims());
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

  /** Nodes whose filter status was Unschedulable, dry-run from a random offset. */
  private DryRunPreemption.Result findCandidates(CycleState state, Pod pod,
      List<NodeInfo> allNodes, NodeToStatus m) {
    List<NodeInfo> potential = new ArrayList<>();
    Status[] statuses = m.statusesOf(allNodes);
    for (int i = 0; i < statuses.length; i++) {
      if (statuses[i].code() == Code.UNSCHEDULABLE) {
        potential.add(allNodes.get(i));
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
    int n = (int) ((long) numNodes * minCandidateNodesPercentage / 100);
    if (n < minCandidateNodesAbsolute) {
      n = minCandidateNodesAbsolute;
    }
    return Math.min(n, numNodes);
  }

  /**
   * Why the pod may not preempt, as upstream's {@code PodEligibleToPreemptOthers}: its
   * preemptionPolicy is Never; or it is nominated to a node (that filters did not rule out for
   * good) where a pod it could evict is still terminating because of preemption, i.e. its earlier
   * victims are not gone yet.
   */
  Optional<String> ineligibility(CycleState state, Pod pod, Status nominatedNodeStatus) {
    if (pod.getSpec() != null && "Never".equals(pod.getSpec().getPreemptionPolicy())) {
      return Optional.of(DefaultPreemption.REASON_PREEMPT_NEVER);
    }
    String nominated = nominatedNodeName(pod);
    if (nominated.isEmpty()
        || nominatedNodeStatus.code() == Code.UNSCHEDULABLE_AND_UNRESOLVABLE) {
      return Optional.empty();
    }
    Optional<NodeInfo> node = handle.snapshotLister().get(nominated);
    if (node.isPresent()) {
      for (PodInfo p : node.get().pods()) {
        if (DefaultPreemption.terminatingByPreemption(p.pod()) && policy.eligible(state, pod, p.pod())) {
          return Optional.of(DefaultPreemption.REASON_TERMINATING_ON_NOMINATED);
        }
      }
    }
    return Optional.empty();
  }

  private static String nominatedNodeName(Pod pod) {
    String n = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return n == null ? "" : n;
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
