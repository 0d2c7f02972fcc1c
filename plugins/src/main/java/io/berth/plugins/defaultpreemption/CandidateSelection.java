package io.berth.plugins.defaultpreemption;

import io.berth.plugins.queuesort.PrioritySort;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Picks the node to preempt on among the candidates, as upstream's
 * {@code pickOneNodeForPreemption}. Each rule keeps only the candidates that score best on it and
 * the next rule breaks the remaining ties (each candidate's score is computed once per rule):
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

  /** Rules 1 to 5 as scores, the greatest winning; each computed once per remaining candidate. */
  private final List<ToLongFunction<Candidate>> scores;
  private final VictimOrdering ordering;

  CandidateSelection(VictimOrdering ordering) {
    this(ordering, VictimPolicy.LOWER_PRIORITY);
  }

  /** With the policy's {@link VictimPolicy#victimsCost} as the rule after PDB violations. */
  CandidateSelection(VictimOrdering ordering, VictimPolicy policy) {
    this.ordering = ordering;
    this.scores = List.of(
        c -> -(long) c.numPdbViolations(),
        c -> -policy.victimsCost(c.victims()),
        c -> -(long) PrioritySort.podPriority(c.victims().get(0)),
        c -> -shiftedPrioritySum(c.victims()),
        c -> -(long) c.victims().size());
  }

  /** The chosen candidate; empty when there are none. Every candidate must have a victim. */
  Optional<Candidate> pick(List<Candidate> candidates) {
    if (candidates.size() <= 1) {
      return candidates.stream().findFirst();
    }
    List<Candidate> remaining = candidates;
    long[] keys = new long[candidates.size()];
    for (ToLongFunction<Candidate> score : scores) {
      long max = Long.MIN_VALUE;
      for (int i = 0; i < remaining.size(); i++) {
        keys[i] = score.applyAsLong(remaining.get(i));
        max = i == 0 ? keys[i] : Math.max(max, keys[i]);
      }
      List<Candidate> best = new ArrayList<>();
      for (int i = 0; i < remaining.size(); i++) {
        if (keys[i] == max) {
          best.add(remaining.get(i));
        }
      }
      if (best.size() == 1) {
        return Optional.of(best.get(0));
      }
      remaining = best;
    }
    // rule 6: the latest earliest start among the highest-priority victims; the first of those left wins
    Candidate latest = remaining.get(0);
    Instant latestStart = ordering.earliestStartOfHighestPriority(latest.victims());
    for (int i = 1; i < remaining.size(); i++) {
      Candidate c = remaining.get(i);
      Instant start = ordering.earliestStartOfHighestPriority(c.victims());
      if (start.isAfter(latestStart)) {
        latest = c;
        latestStart = start;
      }
    }
    return Optional.of(latest);
  }

  private static long shiftedPrioritySum(List<Pod> victims) {
    long sum = 0;
    for (Pod p : victims) {
      sum += PrioritySort.podPriority(p) + PRIORITY_SHIFT;
    }
    return sum;
  }
}
