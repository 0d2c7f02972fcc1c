package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Opportunistic batching as the scheduling algorithm sees it (upstream's
 * {@code Framework.GetNodeHint} and {@code StoreScheduleResults}): before filtering, ask for a
 * hint node for the pod; after choosing a node, store the cycle's sorted remaining nodes for the
 * next pod with the same signature. Not thread-safe: called only from the scheduling thread, one
 * cycle at a time.
 */
public interface NodeHints {
  /** Batching off (the OpportunisticBatching gate is off): never hints, stores nothing. */
  NodeHints DISABLED = new NodeHints() {
    @Override
    public boolean enabled() {
      return false;
    }

    @Override
    public NodeHint getNodeHint(CycleState state, Pod pod, long cycle) {
      return NodeHint.NONE;
    }

    @Override
    public void storeScheduleResults(PodSignature signature, String hintedNode, String chosenNode,
        SortedScoredNodes otherNodes, long cycle) {}
  };

  /** A hint (or none) and the pod's signature (null when it is unsignable). */
  record NodeHint(String node, PodSignature signature) {
    public static final NodeHint NONE = new NodeHint(null, null);

    public boolean hasNode() {
      return node != null;
    }
  }

  /** Whether the gate is on, so the algorithm asks for hints and stores results. */
  boolean enabled();

  /**
   * Signs the pod (once per attempt) and returns the best remaining node of the previous cycle
   * when that cycle's results still apply to this pod; {@code cycle} is the queue's scheduling
   * cycle counter. Runs Filter on the previous pod's node with {@code state}.
   */
  NodeHint getNodeHint(CycleState state, Pod pod, long cycle);

  /**
   * As {@link #getNodeHint(CycleState, Pod, long)}; with {@code sameSnapshot} the caller vouches
   * that the previous cycle ran on this very snapshot, amended only by the previous pod's
   * placement (a group scheduling cycle's members after the first). Then the batch is not aged
   * out, and a previous node that still fits the pod is re-scored and put back among the
   * remaining nodes ({@link SortedScoredNodes#refresh}) instead of flushing the batch.
   */
  default NodeHint getNodeHint(CycleState state, Pod pod, long cycle, boolean sameSnapshot) {
    return getNodeHint(state, pod, cycle);
  }

  /**
   * Records the cycle's outcome: the signature from {@link #getNodeHint}, the hint given (or
   * null), the chosen node and the other feasible nodes best first (null when there were none).
   */
  void storeScheduleResults(PodSignature signature, String hintedNode, String chosenNode,
      SortedScoredNodes otherNodes, long cycle);
}
