package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.OptionalLong;

/**
 * The outcome of one Score pass ({@link Framework#runScorePluginsKeeping}) with each plugin's
 * scores kept, so that one node whose state changed since can be re-scored as that very pass would
 * have scored it: the batch of a group scheduling cycle refreshes the node the previous member was
 * placed on this way instead of scoring every node again. Not thread-safe: built and used on the
 * scheduling thread, for one batch.
 */
public interface NodeScores {
  /** The weighted total score of each node, in the order of the nodes the pass scored. */
  long[] totals();

  /**
   * The fresh total of the {@code index}-th node of the pass, now {@code node}, for {@code pod}
   * (a pod with the signature of the pass's pod) with {@code state} after its PreFilter: PreScore
   * runs on a copy of {@code state} with {@code node} alone, then every Score plugin on
   * {@code node}. Empty when the node cannot be refreshed exactly: a plugin with NormalizeScore now
   * gives it another raw score (its normalization over every node would change), PreScore skips
   * other plugins than in the pass, a score is out of range, or a plugin fails (the full path then
   * reports it). On success the kept scores of that node are updated.
   */
  OptionalLong rescore(CycleState state, Pod pod, int index, NodeInfo node);
}
