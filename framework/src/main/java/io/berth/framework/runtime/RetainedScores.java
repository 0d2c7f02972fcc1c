package io.berth.framework.runtime;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScores;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.OptionalLong;

/**
 * One Score pass's per-plugin scores ({@link ScorePass#keeping}), for refreshing a node whose
 * state changed since (the batch of a group scheduling cycle: the node the previous member went
 * to).
 *
 * <p>Why a refresh of one node is exact: the pass's pods are signed (KEP-5598), so every plugin's
 * score of a node depends only on the pod's signature and that node; placing the previous member
 * on node X changes X's raw scores alone. A plugin without NormalizeScore contributes its raw
 * score directly, so X's fresh raw score is what a full pass would give. A plugin with
 * NormalizeScore scales every node by the pass's maximum (or minimum): if X's raw score for it is
 * unchanged, so is the whole normalization and X keeps its normalized score; if it changed, the
 * other nodes' normalized scores may move too, so the refresh is refused and the caller falls back
 * to a full pass. (Berth's normalizing plugins — TaintToleration, NodeAffinity, InterPodAffinity,
 * PodTopologySpread — read taints, labels and other pods' terms, none of which a signable member's
 * placement changes, so in practice only NodeResourcesFit, BalancedAllocation, ImageLocality and
 * TopologyPlacement move, all without normalization.) Not thread-safe: confined to the scheduling
 * thread with the batch that holds it.
 */
final class RetainedScores implements NodeScores {
  /** Runs the profile's PreScore plugins (the runtime's own, so that metrics and skips apply). */
  interface PreScore {
    Status run(CycleState state, Pod pod, List<NodeInfo> nodes);
  }

  private final List<ScorePlugin> all;
  private final List<ScorePlugin> active;
  private final int[] weights;
  // raw[p] is read only for a plugin with NormalizeScore; perPlugin[p][i] is rewritten by rescore
  private final long[][] raw;
  private final long[][] perPlugin;
  private final long[] totals;
  private final PreScore preScore;

  RetainedScores(List<ScorePlugin> all, List<ScorePlugin> active, int[] weights, long[][] raw,
      long[][] perPlugin, long[] totals, PreScore preScore) {
    this.all = all;
    this.active = active;
    this.weights = weights;
    this.raw = raw;
    this.perPlugin = perPlugin;
    this.totals = totals;
    this.preScore = preScore;
  }

  @Override
  public long[] totals() {
    return totals;
  }

  @Override
  public OptionalLong rescore(CycleState state, Pod pod, int index, NodeInfo node) {
    if (index < 0 || index >= totals.length) {
      return OptionalLong.empty();
    }
    CycleState copy = state.copy();
    if (!preScore.run(copy, pod, List.of(node)).isSuccess() || !sameSkips(copy)) {
      return OptionalLong.empty();
    }
    long[] fresh = new long[active.size()];
    long total = 0;
    for (int p = 0; p < active.size(); p++) {
      ScorePlugin pl = active.get(p);
      long v;
      try {
        v = pl.score(copy, pod, node);
      } catch (RuntimeException e) {
        return OptionalLong.empty(); // the full pass runs it again and reports the failure
      }
      if (pl.scoreExtensions().isPresent()) {
        if (v != raw[p][index]) {
          return OptionalLong.empty();
        }
        v = perPlugin[p][index];
      } else if (v < ScorePlugin.MIN_NODE_SCORE || v > ScorePlugin.MAX_NODE_SCORE) {
        return OptionalLong.empty();
      }
      fresh[p] = v;
      total += v * weights[p];
    }
    for (int p = 0; p < active.size(); p++) {
      perPlugin[p][index] = fresh[p];
    }
    totals[index] = total;
    return OptionalLong.of(total);
  }

  /** Whether PreScore on {@code copy} skipped exactly the plugins the pass skipped. */
  private boolean sameSkips(CycleState copy) {
    int activeSeen = 0;
    for (ScorePlugin pl : all) {
      boolean skipped = copy.skipScorePlugins().contains(pl.name());
      boolean wasActive = activeSeen < active.size() && active.get(activeSeen) == pl;
      if (wasActive) {
        activeSeen++;
      }
      if (skipped == wasActive) {
        return false;
      }
    }
    return activeSeen == active.size();
  }
}
