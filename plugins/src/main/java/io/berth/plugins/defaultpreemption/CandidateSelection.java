package io.berth.plugins.defaultpreemption;

import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the node to preempt on among the candidates, as upstream's
 * {@code pickOneNodeForPreemption}. Each rule keeps only the candidates that score best on it and
 * the next rule breaks the remaining ties:
 * <ol>
 *   <li>fewest PodDisruptionBudget violations;</li>
 *   <li>lowest {@link VictimPolicy#victimsCost} (always equal for DefaultPreemption);</li>
 *   <li>lowest priority of the most important victim;</li>
 *   <li>smallest sum of victim priorities, each shifted by 2^31 so that more victims never make a
 *   sum smaller (negative priorities would otherwise reward evicting more pods);</li>
 *   <li>fewest victims;</li>
 *   <li>latest earliest start time among the highest-priority victims (disturb young pods);</li>
 *   <li>the first remaining candidate in the given order.</li>
 * </ol>
 * Immutable and thread-safe.
 */
final class CandidateSelection {
  /** 2^31, i.e. MaxInt32 + 1: makes every shifted priority non-negative. */
  private static final long PRIORITY_SHIFT = 1L << 31;

  private final List<Comparator<Candidate>> betterFirst;

  CandidateSelection(VictimOrdering ordering) {
    this(ordering, VictimPolicy.LOWER_PRIORITY);
  }

  /** With the policy's {@link VictimPolicy#victimsCost} as the rule after PDB violations. */
  CandidateSelection(VictimOrdering ordering, VictimPolicy policy) {
    // each comparator orders the better candidate last (the greatest wins)
    this.betterFirst = List.of(
        Comparator.comparingLong(c -> -(long) c.numPdbViolations()),
        Comparator.comparingLong(c -> -policy.victimsCost(c.victims())),
        Comparator.comparingLong(c -> -(long) PrioritySort.podPriority(c.victims().get(0))),
        Comparator.comparingLong(c -> -shiftedPrioritySum(c.victims())),
        Comparator.comparingLong(c -> -(long) c.victims().size()),
        Comparator.comparing(c -> ordering.earliestStartOfHighestPriority(c.victims())));
  }

  /** The chosen candidate; empty when there are none. Every candidate must have a victim. */
  Optional<Candidate> pick(List<Candidate> candidates) {
    if (candidates.size() <= 1) {
      return candidates.stream().findFirst();
    }
    List<Candidate> remaining = candidates;
    for (Comparator<Candidate> rule : betterFirst) {
      List<Candidate> best = new ArrayList<>();
      for (Candidate c : remaining) {
        int cmp = best.isEmpty() ? 1 : rule.compare(c, best.get(0));
        if (cmp > 0) {
          best.clear();
          best.add(c);
        } else if (cmp == 0) {
          best.add(c);
        }
      }
      if (best.size() == 1) {
        return Optional.of(best.get(0));
      }
      remaining = best;
    }
    return Optional.of(remaining.get(0));
  }

  private static long shiftedPrioritySum(List<Pod> victims) {
    long sum = 0;
    for (Pod p : victims) {
      sum += PrioritySort.podPriority(p) + PRIORITY_SHIFT;
    }
    return sum;
  }
}
