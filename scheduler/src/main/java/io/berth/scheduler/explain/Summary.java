package io.berth.scheduler.explain;

import io.berth.scheduler.explain.FilterTable.NodeVerdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An attempt's Filter verdicts condensed for large clusters: how many nodes each plugin rejected
 * and for which reason (most first), and the nodes nearest to fitting with what each lacks.
 * "Nearest" ranks the rejected nodes by how far along the Filter plugin order they got (a node
 * rejected by a later plugin passed more of them), then by the resource shortfall relative to the
 * node's allocatable, then by name. Immutable.
 *
 * @param totalNodes nodes in the snapshot
 * @param feasible nodes that passed Filter
 * @param rejections "Plugin: reason" → number of nodes, most frequent first
 * @param nearest up to {@link #NEAREST} rejected nodes nearest to fitting
 */
public record Summary(int totalNodes, int feasible, Map<String, Integer> rejections,
    List<NodeVerdict> nearest) {
  /** How many nearest-to-fitting nodes a summary lists. */
  public static final int NEAREST = 5;

  public Summary {
    rejections = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rejections));
    nearest = List.copyOf(nearest);
  }

  /** The summary of {@code filter}. */
  public static Summary of(FilterTable filter) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (NodeVerdict v : filter.rejected()) {
      counts.merge(v.plugin() + ": " + v.reason(), 1, Integer::sum);
    }
    int others = filter.totalNodes() - filter.feasible().size() - filter.rejected().size();
    if (filter.otherNodes().isPresent() && others > 0) {
      NodeVerdict o = filter.otherNodes().get();
      counts.merge(o.plugin() + ": " + o.reason(), others, Integer::sum);
    }
    List<Map.Entry<String, Integer>> sorted = new ArrayList<>(counts.entrySet());
    sorted.sort(Map.Entry.<String, Integer>comparingByValue().reversed()
        .thenComparing(Map.Entry.comparingByKey()));
    Map<String, Integer> ordered = new LinkedHashMap<>();
    sorted.forEach(e -> ordered.put(e.getKey(), e.getValue()));
    List<String> order = filter.plugins();
    Comparator<NodeVerdict> nearestFirst = Comparator
        .comparingInt((NodeVerdict v) -> -order.indexOf(v.plugin()))
        .thenComparingDouble(NodeVerdict::shortfall)
        .thenComparing(NodeVerdict::node);
    List<NodeVerdict> nearest = filter.rejected().stream().sorted(nearestFirst).limit(NEAREST)
        .toList();
    return new Summary(filter.totalNodes(), filter.feasible().size(), ordered, nearest);
  }
}
