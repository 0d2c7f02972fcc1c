package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * The feasible nodes of a scheduling cycle other than the chosen one, best first, as upstream's
 * {@code framework.SortedScoredNodes}: the batch hands them out one by one as hints. Not
 * thread-safe: owned by the scheduling thread.
 */
public interface SortedScoredNodes {
  /** Removes and returns the best remaining node's name. Only when {@link #size()} > 0. */
  String pop();

  int size();

  /**
   * Puts {@code node}, one of the cycle's scored nodes that was handed out and whose state
   * changed since, back in its place with the score the cycle's Score pass would now give it for
   * {@code pod} ({@link NodeScores#rescore}); for the batch of a group scheduling cycle, where
   * the previous member's node may still fit the next member. Returns false when this list cannot
   * (it kept no per-plugin scores, the node is not one of its nodes or is still in the list, or
   * the node cannot be re-scored exactly); the batch is then flushed. Upstream has no such step:
   * its batch requires the previous node to be full.
   */
  default boolean refresh(CycleState state, Pod pod, NodeInfo node) {
    return false;
  }
}
