package io.berth.plugins.defaultpreemption;

import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Comparator;
import java.util.List;

/**
 * What a preemption plugin decides on top of the shared machinery of {@link PreemptionEvaluator}, as the hooks
 * upstream's {@code preemption.Interface} gives scheduler-plugins' CapacityScheduling: which pods may be victims,
 * which to give up first, whether the preemptor is admitted once some pods are gone (beyond the Filter plugins),
 * whether a node's final victims are acceptable, and how candidates compare before the default rules.
 * {@link #LOWER_PRIORITY} is kube-scheduler's DefaultPreemption. Implementations are thread-safe: the dry run calls
 * them from parallel workers, each with its own copy of the cycle state.
 */
public interface VictimPolicy {

  /** kube-scheduler's rule: any pod of lower priority may be a victim; nothing else is checked. */
  VictimPolicy LOWER_PRIORITY = (state, preemptor, pod) ->
      PrioritySort.podPriority(pod) < PrioritySort.podPriority(preemptor);

  /** Whether {@code pod} (on a node being simulated) may be evicted to make room for {@code preemptor}. */
  boolean eligible(CycleState state, Pod preemptor, Pod pod);

  /**
   * The order in which victims are reprieved, most important first; the least important end up as victims.
   * {@code byPriority} is upstream's (priority, then earlier start).
   */
  default Comparator<Pod> importance(Comparator<Pod> byPriority) {
    return byPriority;
  }

  /** Whether {@code preemptor} is admitted with {@code removed} gone (the nodes' filters already pass). */
  default Status admits(CycleState state, Pod preemptor, List<Pod> removed) {
    return Status.SUCCESS;
  }

  /** Whether a node's chosen {@code victims} may all be evicted; anything but Success drops the node. */
  default Status acceptVictims(CycleState state, Pod preemptor, List<Pod> victims) {
    return Status.SUCCESS;
  }

  /** A candidate's cost, compared right after PodDisruptionBudget violations: the lowest wins. */
  default long victimsCost(List<Pod> victims) {
    return 0;
  }

  /** Called once the candidate is chosen, before its victims are preempted (for metrics). */
  default void preempting(Pod preemptor, String nodeName, List<Pod> victims) {}
}
