package io.berth.framework;

/**
 * The feasible nodes of a scheduling cycle other than the chosen one, best first, as upstream's
 * {@code framework.SortedScoredNodes}: the batch hands them out one by one as hints. Not
 * thread-safe: owned by the scheduling thread.
 */
public interface SortedScoredNodes {
  /** Removes and returns the best remaining node's name. Only when {@link #size()} > 0. */
  String pop();

  int size();
}
