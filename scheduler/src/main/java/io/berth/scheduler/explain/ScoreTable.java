package io.berth.scheduler.explain;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The Score phase of one attempt: for each scored node and each Score plugin that ran, the raw
 * score, the score after NormalizeScore, the plugin's weight and the weighted score; the node's
 * total is the sum of the weighted scores, the figure the scheduler picked the highest of. Stored
 * as arrays (it is nodes × plugins) and exposed as lists built on demand; the arrays are narrowed
 * when built (normalized scores in [0, 100] as bytes, raw scores as ints when they fit, a plugin
 * without NormalizeScore sharing one row for both), which keeps a recorded 5,000-node attempt
 * small. Immutable: the arrays given to the constructor are only read.
 */
public final class ScoreTable {
  /** No Score phase (one feasible node, none, or no Score plugins). */
  public static final ScoreTable EMPTY = new ScoreTable(List.of(), new int[0], List.of(),
      new long[0][], new long[0][]);

  private final List<String> plugins;
  private final int[] weights;
  private final List<String> nodes;
  private final Row[] raw;
  private final Row[] normalized;

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
    this.weights = weights.clone();
    this.nodes = List.copyOf(nodes);
    this.raw = new Row[raw.length];
    this.normalized = new Row[normalized.length];
    for (int p = 0; p < raw.length; p++) {
      if (raw[p].length != this.nodes.size() || normalized[p].length != this.nodes.size()) {
        throw new IllegalArgumentException("scores of plugin " + plugins.get(p)
            + ": one score per node is required");
      }
      this.normalized[p] = Row.of(normalized[p]);
      this.raw[p] = raw[p] == normalized[p] || java.util.Arrays.equals(raw[p], normalized[p])
          ? this.normalized[p] : Row.of(raw[p]);
    }
  }

  /** One plugin's scores of every node, stored in the narrowest type that holds them. */
  private interface Row {
    long get(int i);

    static Row of(long[] values) {
      long min = 0;
      long max = 0;
      for (long v : values) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      if (min >= Byte.MIN_VALUE && max <= Byte.MAX_VALUE) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
          b[i] = (byte) values[i];
        }
        return i -> b[i];
      }
      if (min >= Integer.MIN_VALUE && max <= Integer.MAX_VALUE) {
        int[] n = new int[values.length];
        for (int i = 0; i < values.length; i++) {
          n[i] = (int) values[i];
        }
        return i -> n[i];
      }
      long[] copy = values.clone();
      return i -> copy[i];
    }
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
      long norm = normalized[p].get(i);
      long weighted = norm * weights[p];
      total += weighted;
      cells.add(new PluginScore(plugins.get(p), raw[p].get(i), norm, weights[p], weighted));
    }
    return new NodeScores(nodes.get(i), cells, total);
  }
}
