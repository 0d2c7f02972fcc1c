package io.berth.scheduler.explain;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The Score phase of one attempt: for each scored node and each Score plugin that ran, the raw
 * score, the score after NormalizeScore, the plugin's weight and the weighted score; the node's
 * total is the sum of the weighted scores, the figure the scheduler picked the highest of. Stored
 * as arrays (it is nodes × plugins) and exposed as lists built on demand. Immutable: the arrays
 * are handed over by the recorder and never written again.
 */
public final class ScoreTable {
  /** No Score phase (one feasible node, none, or no Score plugins). */
  public static final ScoreTable EMPTY = new ScoreTable(List.of(), new int[0], List.of(),
      new long[0][], new long[0][]);

  private final List<String> plugins;
  private final int[] weights;
  private final List<String> nodes;
  private final long[][] raw;
  private final long[][] normalized;

  /**
   * @param plugins the Score plugins that ran
   * @param weights their weights, index-aligned with {@code plugins}
   * @param nodes the scored nodes
   * @param raw {@code raw[p][i]}: plugin p's score of node i before normalizing
   * @param normalized {@code normalized[p][i]}: after normalizing
   */
  public ScoreTable(List<String> plugins, int[] weights, List<String> nodes, long[][] raw,
      long[][] normalized) {
    if (weights.length != plugins.size() || raw.length != plugins.size()
        || normalized.length != plugins.size()) {
      throw new IllegalArgumentException("scores: plugins, weights and score rows differ in length");
    }
    this.plugins = List.copyOf(plugins);
    this.weights = weights;
    this.nodes = List.copyOf(nodes);
    this.raw = raw;
    this.normalized = normalized;
  }

  /**
   * One plugin's score of one node.
   *
   * @param plugin the Score plugin
   * @param raw its score before NormalizeScore
   * @param normalized after NormalizeScore (in [0, 100])
   * @param weight the plugin's weight in the profile
   * @param weighted {@code normalized * weight}
   */
  public record PluginScore(String plugin, long raw, long normalized, int weight, long weighted) {
  }

  /**
   * A node's scores.
   *
   * @param node the node
   * @param plugins each plugin's score, in the order the plugins ran
   * @param total the sum of the weighted scores
   */
  public record NodeScores(String node, List<PluginScore> plugins, long total) {
    public NodeScores {
      plugins = List.copyOf(plugins);
    }
  }

  public boolean isEmpty() {
    return nodes.isEmpty() || plugins.isEmpty();
  }

  public List<String> plugins() {
    return plugins;
  }

  /** The weight of {@code plugin}, if it scored. */
  public Optional<Integer> weight(String plugin) {
    int p = plugins.indexOf(plugin);
    return p < 0 ? Optional.empty() : Optional.of(weights[p]);
  }

  /** The scored nodes, in the order they were scored. */
  public List<String> nodes() {
    return nodes;
  }

  /** Every scored node's scores, in the order they were scored. */
  public List<NodeScores> rows() {
    List<NodeScores> out = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      out.add(row(i));
    }
    return Collections.unmodifiableList(out);
  }

  /** The scores of one node, if it was scored. */
  public Optional<NodeScores> row(String node) {
    int i = nodes.indexOf(node);
    return i < 0 ? Optional.empty() : Optional.of(row(i));
  }

  private NodeScores row(int i) {
    List<PluginScore> cells = new ArrayList<>(plugins.size());
    long total = 0;
    for (int p = 0; p < plugins.size(); p++) {
      long weighted = normalized[p][i] * weights[p];
      total += weighted;
      cells.add(new PluginScore(plugins.get(p), raw[p][i], normalized[p][i], weights[p], weighted));
    }
    return new NodeScores(nodes.get(i), cells, total);
  }
}
