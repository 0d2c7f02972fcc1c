package io.berth.framework.runtime;

import static io.berth.framework.runtime.PluginCalls.errorOf;
import static io.berth.framework.runtime.PluginCalls.safely;
import static io.berth.framework.runtime.PluginCalls.wrapError;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScore;
import io.berth.framework.Parallelizer;
import io.berth.framework.ScorePlugin;
import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Score phase in upstream's three passes: every Score plugin not skipped by its PreScore scores
 * every node (nodes in parallel), each plugin's NormalizeScore rewrites its scores, then the
 * scores, checked to lie in [0, 100], are multiplied by the plugin's weight and summed per node.
 * Stateless; the per-call arrays are written by one worker per node, then read by the caller.
 */
final class ScorePass {
  private ScorePass() {}

  /**
   * The total weighted score of each node, in the order of {@code nodes}; with {@code rec}
   * non-null, each plugin's raw and normalized scores are handed to it as well.
   */
  static long[] run(List<ScorePlugin> score, int[] weights, Parallelizer parallelizer,
      CycleState state, Pod pod, List<NodeInfo> nodes, PluginResults rec) {
    return pass(score, weights, parallelizer, state, pod, nodes, rec, false).total;
  }

  /**
   * As {@link #run}, keeping each active plugin's normalized scores (and, for a plugin with
   * NormalizeScore, its raw ones) for {@link RetainedScores#rescore}.
   */
  static RetainedScores keeping(List<ScorePlugin> score, int[] weights, Parallelizer parallelizer,
      CycleState state, Pod pod, List<NodeInfo> nodes, PluginResults rec,
      RetainedScores.PreScore preScore) {
    Pass p = pass(score, weights, parallelizer, state, pod, nodes, rec, true);
    long[][] kept = p.perPlugin;
    if (rec != null) {
      // the record keeps the pass's arrays; a refresh must not rewrite what it shows
      kept = new long[kept.length][];
      for (int i = 0; i < kept.length; i++) {
        kept[i] = p.perPlugin[i].clone();
      }
    }
    return new RetainedScores(score, p.active, p.weights, p.raw, kept, p.total, preScore);
  }

  /** What one pass computed: active plugins, their weights, scores per plugin and the totals. */
  private record Pass(List<ScorePlugin> active, int[] weights, long[][] raw, long[][] perPlugin,
      long[] total) { }

  private static Pass pass(List<ScorePlugin> score, int[] weights, Parallelizer parallelizer,
      CycleState state, Pod pod, List<NodeInfo> nodes, PluginResults rec, boolean keepRaw) {
    List<ScorePlugin> active = new ArrayList<>(score.size());
    List<Integer> activeWeights = new ArrayList<>(score.size());
    for (int i = 0; i < score.size(); i++) {
      if (!state.skipScorePlugins().contains(score.get(i).name())) {
        active.add(score.get(i));
        activeWeights.add(weights[i]);
      }
    }
    int n = nodes.size();
    long[][] perPlugin = new long[active.size()][n];
    if (!active.isEmpty()) {
      parallelizer.until(n, i -> {
        NodeInfo node = nodes.get(i);
        for (int p = 0; p < active.size(); p++) {
          ScorePlugin pl = active.get(p);
          try {
            perPlugin[p][i] = pl.score(state, pod, node);
          } catch (StatusException e) {
            throw new StatusException(wrapError(e.status(), "running Score plugin \""
                + pl.name() + "\"", pl.name()));
          } catch (RuntimeException e) {
            throw new StatusException(errorOf(e, pl, "Score"));
          }
        }
      });
    }
    long[] total = new long[n];
    // raw scores survive normalization only when someone records or keeps them (one copy per
    // plugin; a plugin without NormalizeScore shares its one array)
    long[][] raw = rec == null && !keepRaw ? null : new long[active.size()][];
    // the node names, read once here where the scheduling thread has the nodes at hand (the
    // NormalizeScore lists and the record share them; a recorder thread reading them later
    // would chase three cold references per node)
    String[] names = rec != null || anyNormalizes(active) ? nodeNames(nodes) : null;
    int[] w = new int[active.size()];
    for (int p = 0; p < active.size(); p++) {
      ScorePlugin pl = active.get(p);
      Optional<ScorePlugin.ScoreExtensions> ext = pl.scoreExtensions();
      if (raw != null) {
        raw[p] = ext.isPresent() ? perPlugin[p].clone() : perPlugin[p];
      }
      if (ext.isPresent()) {
        List<NodeScore> scores = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          scores.add(new NodeScore(names[i], perPlugin[p][i]));
        }
        Status s = safely(() -> ext.get().normalizeScore(state, pod, scores), pl,
            "NormalizeScore");
        if (!s.isSuccess()) {
          throw new StatusException(wrapError(s, "running Normalize on Score plugin \""
              + pl.name() + "\"", pl.name()));
        }
        for (int i = 0; i < n; i++) {
          perPlugin[p][i] = scores.get(i).score();
        }
      }
      int weight = activeWeights.get(p);
      w[p] = weight;
      for (int i = 0; i < n; i++) {
        long v = perPlugin[p][i];
        if (v < ScorePlugin.MIN_NODE_SCORE || v > ScorePlugin.MAX_NODE_SCORE) {
          throw new StatusException(invalidScore(pl, v));
        }
        total[i] += v * weight;
      }
    }
    if (rec != null && !active.isEmpty()) {
      List<String> pluginNames = new ArrayList<>(active.size());
      for (int p = 0; p < active.size(); p++) {
        pluginNames.add(active.get(p).name());
      }
      rec.scores(new PluginResults.Scores(List.copyOf(pluginNames), w.clone(), List.copyOf(nodes),
          names, raw, perPlugin));
    }
    return new Pass(List.copyOf(active), w, raw, perPlugin, total);
  }

  static Status invalidScore(ScorePlugin pl, long v) {
    return Status.error("plugin \"" + pl.name() + "\" returns an invalid score " + v
        + ", it should in the range of [" + ScorePlugin.MIN_NODE_SCORE + ", "
        + ScorePlugin.MAX_NODE_SCORE + "] after normalizing").withPlugin(pl.name());
  }

  private static boolean anyNormalizes(List<ScorePlugin> plugins) {
    for (ScorePlugin p : plugins) {
      if (p.scoreExtensions().isPresent()) {
        return true;
      }
    }
    return false;
  }

  private static String[] nodeNames(List<NodeInfo> nodes) {
    String[] out = new String[nodes.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = nodes.get(i).nodeName();
    }
    return out;
  }
}
