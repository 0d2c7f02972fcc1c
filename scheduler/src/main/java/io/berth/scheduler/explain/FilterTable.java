package io.berth.scheduler.explain;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Per node, how Filter judged one attempt's pod: passed, rejected by a plugin (with its reason and,
 * for resource rejections, what the node lacks), or rejected at PreFilter for every node, or not
 * evaluated (Filter stops once it found enough feasible nodes, as upstream's
 * {@code percentageOfNodesToScore}). Kept compact because it is per node: the feasible node names
 * and the rejected nodes' verdicts are stored once and {@link #nodes()} builds the list on demand.
 * Immutable.
 */
public final class FilterTable {
  /** An attempt whose Filter did not run. */
  public static final FilterTable EMPTY = new FilterTable(List.of(), 0, List.of(), List.of(),
      Optional.empty());

  private final List<String> plugins;
  private final int totalNodes;
  private final List<String> feasible;
  private final List<NodeVerdict> rejected;
  private final Optional<NodeVerdict> otherNodes;
  // built lazily from `rejected`; benign race: both racers build equal maps
  private volatile Map<String, NodeVerdict> byName;

  /**
   * @param plugins the Filter plugins that ran, in order (PreFilter skips left out)
   * @param totalNodes the nodes in the snapshot
   * @param feasible the nodes that passed every Filter plugin
   * @param rejected the rejected nodes' verdicts
   * @param otherNodes the verdict of every node in neither list when PreFilter decided for them
   *     (its {@code node} is {@code "*"}); empty when the others were simply not evaluated
   */
  public FilterTable(List<String> plugins, int totalNodes, List<String> feasible,
      List<NodeVerdict> rejected, Optional<NodeVerdict> otherNodes) {
    this.plugins = List.copyOf(plugins);
    this.totalNodes = totalNodes;
    this.feasible = List.copyOf(feasible);
    this.rejected = List.copyOf(rejected);
    this.otherNodes = otherNodes;
  }

  /**
   * One node's verdict.
   *
   * @param node the node's name ({@code "*"} for "every other node")
   * @param passed whether it passed every Filter plugin
   * @param plugin the rejecting plugin ("" when passed)
   * @param code the rejecting status code ("Success" when passed)
   * @param reason the rejection reasons joined with ", " ("passed" when passed)
   * @param lacks for a resource rejection, what the node lacks ("needs 500m cpu more"); empty
   *     otherwise
   * @param shortfall the resource shortfall as a share of the node's allocatable (0 when none;
   *     ranks the nearest-to-fitting nodes)
   */
  public record NodeVerdict(String node, boolean passed, String plugin, String code,
      String reason, Optional<String> lacks, double shortfall) {
    /** A passing node. */
    public static NodeVerdict passed(String node) {
      return new NodeVerdict(node, true, "", "Success", "passed", Optional.empty(), 0);
    }
  }

  /** The Filter plugins in the order they ran. */
  public List<String> plugins() {
    return plugins;
  }

  public int totalNodes() {
    return totalNodes;
  }

  /** The feasible nodes' names. */
  public List<String> feasible() {
    return feasible;
  }

  /** The rejected nodes' verdicts, sorted by node name. */
  public List<NodeVerdict> rejected() {
    return rejected;
  }

  /** The verdict PreFilter gave every node not listed, if it did. */
  public Optional<NodeVerdict> otherNodes() {
    return otherNodes;
  }

  /** How many nodes Filter did not look at (enough feasible nodes were found first). */
  public int notEvaluated() {
    return otherNodes.isPresent() ? 0 : Math.max(0, totalNodes - feasible.size() - rejected.size());
  }

  /** Feasible nodes first (as found), then the rejected ones by name. */
  public List<NodeVerdict> nodes() {
    List<NodeVerdict> out = new ArrayList<>(feasible.size() + rejected.size());
    for (String n : feasible) {
      out.add(NodeVerdict.passed(n));
    }
    out.addAll(rejected);
    return Collections.unmodifiableList(out);
  }

  /** The verdict of one node: its own, the PreFilter verdict of the rest, or empty. */
  public Optional<NodeVerdict> node(String name) {
    if (feasible.contains(name)) {
      return Optional.of(NodeVerdict.passed(name));
    }
    Map<String, NodeVerdict> map = byName;
    if (map == null) {
      map = new HashMap<>();
      for (NodeVerdict v : rejected) {
        map.put(v.node(), v);
      }
      byName = map;
    }
    NodeVerdict v = map.get(name);
    return v != null ? Optional.of(v) : otherNodes;
  }
}
