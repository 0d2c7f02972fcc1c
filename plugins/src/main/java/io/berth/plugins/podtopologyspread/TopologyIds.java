package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node's value of one topology label, as a small integer id, by position in the node list,
 * kept from one cycle to the next and refreshed only for nodes whose
 * {@link NodeInfo#generation()} changed (a node update bumps it too). PreScore sums per-node counts
 * into domains through these ids instead of reading each node's labels and hashing its value.
 *
 * <p>Not thread-safe: used by one {@link MatchCountMemo.Session} at a time; {@link #refresh}
 * runs on the session's thread.
 */
final class TopologyIds {
  /** The id of a node without the label. */
  static final int ABSENT = -1;

  private final String topologyKey;
  private long[] gens = new long[0];
  private int[] ids = new int[0];
  // id -> value and back; only grows, until it is reset for holding far more values than nodes
  private final List<String> values = new ArrayList<>();
  private final Map<String, Integer> idOf = new HashMap<>();

  TopologyIds(String topologyKey) {
    this.topologyKey = topologyKey;
  }

  /** Brings the ids up to date with {@code nodes}. */
  void refresh(List<NodeInfo> nodes) {
    int n = nodes.size();
    if (values.size() > 2 * n + 64) {
      // values of nodes long gone (hostnames of replaced nodes): start over
      values.clear();
      idOf.clear();
      gens = new long[n];
    }
    if (gens.length != n) {
      gens = Arrays.copyOf(gens, n);
      ids = Arrays.copyOf(ids, n);
    }
    for (int s = 0; s < n; s++) {
      NodeInfo nodeInfo = nodes.get(s);
      // generation 0 is never handed out, so fresh slots always miss
      if (gens[s] != nodeInfo.generation()) {
        String value = SpreadConstraint.labelsOf(nodeInfo.getNode()).get(topologyKey);
        ids[s] = value == null ? ABSENT : intern(value);
        gens[s] = nodeInfo.generation();
      }
    }
  }

  /** The id of the value at position {@code s} ({@link #ABSENT} without the label). */
  int idAt(int s) {
    return ids[s];
  }

  /** The number of ids handed out so far (ids are below it). */
  int size() {
    return values.size();
  }

  /** The value an id stands for. */
  String value(int id) {
    return values.get(id);
  }

  private int intern(String value) {
    Integer id = idOf.get(value);
    if (id == null) {
      id = values.size();
      values.add(value);
      idOf.put(value, id);
    }
    return id;
  }
}
