package io.berth.framework.runtime;

import io.berth.framework.PodSignature;
import io.berth.framework.SortedScoredNodes;

/**
 * The batch a previous cycle left behind, as upstream's {@code batchState}: the signature of the
 * pod that produced it, its remaining feasible nodes best first, and when it was created
 * ({@code System.nanoTime} scale). The node list is consumed by hints. Not thread-safe: confined
 * to the scheduling thread with its {@link OpportunisticBatch}.
 */
record BatchState(PodSignature signature, SortedScoredNodes sortedNodes, long createdNanos) {
  boolean empty() {
    return sortedNodes == null || sortedNodes.size() == 0;
  }
}
