package io.berth.framework.runtime;

import io.berth.framework.BatchMetrics;
import io.berth.framework.CycleState;
import io.berth.framework.Framework;
import io.berth.framework.NodeHints;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodSignature;
import io.berth.framework.SortedScoredNodes;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opportunistic batching for one profile (KEP-5598), as upstream's
 * {@code runtime.OpportunisticBatch}: consecutive pods with equal signatures scheduled one per
 * node reuse the previous cycle's sorted feasible nodes. The previous state is usable only when
 * the pod comes in the very next scheduling cycle, the previous pod got a node, the signatures
 * are equal, the state is younger than {@link #MAX_BATCH_AGE}, and the previous pod's node is
 * still in the snapshot and now rejects this pod (so it is "full" and the rest of the order still
 * holds); then the best remaining node is popped as the hint. Berth's one extension is for the
 * members of a group scheduling cycle after the first ({@code sameSnapshot}): they all run on
 * one snapshot amended by the members before them, so the batch does not age out, and a previous
 * node that still fits is re-scored and put back among the remaining nodes
 * ({@link SortedScoredNodes#refresh}) rather than flushing the batch; a gang of identical pods
 * then costs one full Filter and Score pass, not one per member. Not thread-safe: confined to the
 * scheduling thread (the only caller of {@link #getNodeHint} and {@link #storeScheduleResults}).
 */
public final class OpportunisticBatch implements NodeHints {
  private static final Logger LOG = LoggerFactory.getLogger(OpportunisticBatch.class);

  /** Upstream's maxBatchAge. */
  public static final Duration MAX_BATCH_AGE = Duration.ofMillis(500);

  public static final String ATTEMPT_NO_HINT = "no_hint";
  public static final String ATTEMPT_HINT_USED = "hint_used";
  public static final String ATTEMPT_HINT_NOT_USED = "hint_not_used";

  public static final String FLUSH_POD_SKIPPED = "pod_skipped";
  public static final String FLUSH_POD_FAILED = "pod_failed";
  public static final String FLUSH_NODE_MISSING = "node_missing";
  public static final String FLUSH_NODE_NOT_FULL = "node_not_full";
  public static final String FLUSH_EMPTY_LIST = "empty_list";
  public static final String FLUSH_EXPIRED = "expired";
  public static final String FLUSH_POD_INCOMPATIBLE = "pod_incompatible";
  public static final String FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable";

  private final Framework framework;
  private final Function<Pod, PodSignature> signer;
  private final BatchMetrics metrics;
  private final LongSupplier nanoClock;

  // confined to the scheduling thread
  private BatchState state;
  // confined to the scheduling thread; cycle 0 with no node means "no previous cycle"
  private long lastCycle;
  private String lastChosenNode;
  private boolean lastSucceeded;
  private long batchedPods;
  private long refreshedNodes;

  /**
   * @param framework runs Filter on the previous pod's node and lists the snapshot
   * @param signer the pod's signature, or null when it is unsignable
   * @param nanoClock {@code System::nanoTime} but for tests
   */
  public OpportunisticBatch(Framework framework, Function<Pod, PodSignature> signer,
      BatchMetrics metrics, LongSupplier nanoClock) {
    this.framework = framework;
    this.signer = signer;
    this.metrics = metrics;
    this.nanoClock = nanoClock;
  }

  @Override
  public boolean enabled() {
    return true;
  }

  @Override
  public NodeHint getNodeHint(CycleState cycleState, Pod pod, long cycle) {
    return getNodeHint(cycleState, pod, cycle, false);
  }

  @Override
  public NodeHint getNodeHint(CycleState cycleState, Pod pod, long cycle, boolean sameSnapshot) {
    long start = System.nanoTime();
    String hint = null;
    PodSignature signature = signer.apply(pod);
    try {
      if (!compatible(cycleState, pod, signature, cycle, sameSnapshot)) {
        metrics.batchAttempt(framework.profileName(), ATTEMPT_NO_HINT);
        LOG.trace("OpportunisticBatch no node hint available for pod in profile {} cycle {}",
            framework.profileName(), cycle);
        return new NodeHint(null, signature);
      }
      hint = state.sortedNodes().pop();
      LOG.trace("OpportunisticBatch provided node hint {} in profile {} cycle {} ({} remaining)",
          hint, framework.profileName(), cycle, state.sortedNodes().size());
      return new NodeHint(hint, signature);
    } finally {
      metrics.nodeHintDuration(hint != null, framework.profileName(), System.nanoTime() - start);
    }
  }

  @Override
  public void storeScheduleResults(PodSignature signature, String hintedNode, String chosenNode,
      SortedScoredNodes otherNodes, long cycle) {
    long start = System.nanoTime();
    try {
      lastCycle = cycle;
      lastChosenNode = chosenNode;
      lastSucceeded = true;
      if (hintedNode != null && hintedNode.equals(chosenNode)) {
        metrics.batchAttempt(framework.profileName(), ATTEMPT_HINT_USED);
        batchedPods++;
        return;
      }
      if (hintedNode != null) {
        metrics.batchAttempt(framework.profileName(), ATTEMPT_HINT_NOT_USED);
        LOG.trace("OpportunisticBatch hint {} not used, chose {}", hintedNode, chosenNode);
      }
      if (signature != null && otherNodes != null && otherNodes.size() > 0) {
        state = new BatchState(signature, otherNodes, nanoClock.getAsLong());
      } else {
        flush(cycle, otherNodes == null || otherNodes.size() == 0 ? FLUSH_EMPTY_LIST
            : FLUSH_POD_NOT_BATCHABLE);
        state = null;
      }
    } finally {
      metrics.storeScheduleResultsDuration(framework.profileName(), System.nanoTime() - start);
    }
  }

  /** Pods placed through a hint since start (for tests and the harness). */
  public long batchedPods() {
    return batchedPods;
  }

  /**
   * How often a group cycle's member found the previous member's node still fitting and had it
   * re-scored and put back instead of flushing the batch (for tests and the harness).
   */
  public long refreshedNodes() {
    return refreshedNodes;
  }

  /** The remaining hint count, 0 when there is no state (for tests). */
  int remainingNodes() {
    return state == null || state.sortedNodes() == null ? 0 : state.sortedNodes().size();
  }

  /** The stored state's signature, or null (for tests). */
  PodSignature stateSignature() {
    return state == null ? null : state.signature();
  }

  private boolean compatible(CycleState cycleState, Pod pod, PodSignature signature, long cycle,
      boolean sameSnapshot) {
    if (state == null || (state.empty() && !sameSnapshot)) {
      // on the same snapshot an empty list may still take the previous node back (refresh)
      return false;
    }
    if (cycle != lastCycle + 1) {
      // another profile's pod, or a pod that failed, came in between
      return flush(cycle, FLUSH_POD_SKIPPED);
    }
    if (!lastSucceeded) {
      return flush(cycle, FLUSH_POD_FAILED);
    }
    if (signature == null || !signature.equals(state.signature())) {
      return flush(cycle, FLUSH_POD_INCOMPATIBLE);
    }
    // the age limit guards against cluster changes between cycles; a group cycle's members all
    // run on one snapshot, amended only by their own placements, which the refresh below covers
    if (!sameSnapshot && nanoClock.getAsLong() - state.createdNanos() > MAX_BATCH_AGE.toNanos()) {
      return flush(cycle, FLUSH_EXPIRED);
    }
    // Only if this pod no longer fits where the previous one went is the rest of the previous
    // order still right (one pod per node): otherwise that node might still be the best.
    Optional<NodeInfo> last = lastChosenNode == null ? Optional.empty()
        : framework.snapshotLister().get(lastChosenNode).filter(n -> n.node().isPresent());
    if (last.isEmpty()) {
      return flush(cycle, FLUSH_NODE_MISSING);
    }
    Status s = framework.runFilterPlugins(cycleState, pod, last.get());
    if (!s.isRejected()) {
      // Within a group cycle the previous node is the only one whose state changed since the
      // remaining order was scored, so re-scoring it and putting it back keeps the order exact
      // (see SortedScoredNodes.refresh); elsewhere, as upstream, the batch is no longer usable.
      if (!sameSnapshot || !s.isSuccess()
          || !state.sortedNodes().refresh(cycleState, pod, last.get())) {
        return flush(cycle, FLUSH_NODE_NOT_FULL);
      }
      refreshedNodes++;
      LOG.trace("OpportunisticBatch re-scored node {} for the next member in profile {} cycle {}",
          lastChosenNode, framework.profileName(), cycle);
    }
    return !state.empty();
  }

  private boolean flush(long cycle, String reason) {
    metrics.batchCacheFlushed(framework.profileName(), reason);
    LOG.trace("OpportunisticBatch found unusable state in profile {} cycle {}: {}",
        framework.profileName(), cycle, reason);
    return false;
  }
}
