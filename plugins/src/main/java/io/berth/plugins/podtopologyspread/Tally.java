package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Per-node results of PreFilter's counting for one {@link CountingMemo.Key}, by position in the
 * snapshot's node list: the NodeInfo generation they were computed for, and per constraint the
 * matching pod count (or {@link #EXCLUDED}) and the interned topology value. {@link #refresh}
 * recomputes only positions whose generation differs, then sums the counts per domain.
 *
 * <p>Not thread-safe: used by one PreFilter call at a time (see {@link CountingMemo}); during
 * {@link #refresh} the parallel workers each write only their own positions, read after
 * {@link Parallelizer#until} has returned.
 */
final class Tally {
  /** A node lacking one of the topology keys: not counted at all. */
  static final int LACKS_KEYS = -2;
  /** A node the constraint's node inclusion policies leave out. */
  static final int EXCLUDED = -1;
  /** Below this many changed nodes, recount on the calling thread. */
  private static final int PARALLEL_THRESHOLD = 32;

  private final int k;
  // set while CountingMemo's lock is held for this tally
  boolean memoized;
  private long[] gens = new long[0];
  private int[] counts = new int[0];
  private int[] domains = new int[0];
  private String[] values = new String[0];
  private int[] misses = new int[0];
  // per constraint: topology value -> domain id, and the reverse
  private final List<Map<String, Integer>> ids = new ArrayList<>();
  private final List<List<String>> names = new ArrayList<>();
  // per constraint: the domains of the last refresh in first-seen order, and the map built then
  private final int[][] lastOrder;
  private final List<Map<String, Integer>> lastIds = new ArrayList<>();

  Tally(int constraintCount) {
    this.k = constraintCount;
    this.lastOrder = new int[k][];
    for (int i = 0; i < k; i++) {
      ids.add(new HashMap<>());
      names.add(new ArrayList<>());
      lastIds.add(null);
    }
  }

  /** One constraint's counts: topology value to index in {@code nums}, and the counts. */
  record DomainCounts(Map<String, Integer> ids, int[] nums) {}

  /**
   * Brings the per-node results up to date with {@code nodes} and returns, per constraint, the
   * matching pods of every domain holding an eligible node. The returned maps are never mutated
   * afterwards; a map is the very one of the previous refresh when the domains, in node order,
   * are the same, and otherwise a HashMap filled in node order (so iteration orders match a
   * fresh count).
   */
  DomainCounts[] refresh(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes,
      Parallelizer parallelizer) {
    int n = nodes.size();
    ensureCapacity(n);
    int m = 0;
    for (int s = 0; s < n; s++) {
      if (gens[s] != nodes.get(s).generation()) {
        misses[m++] = s;
      }
    }
    if (m > 0) {
      recount(pod, constraints, nodes, parallelizer, m);
    }
    return sum(n);
  }

  private void recount(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes,
      Parallelizer parallelizer, int m) {
    Predicate<Node> affinity = SpreadConstraint.requiredNodeAffinity(pod);
    String namespace = pod.getMetadata().getNamespace();
    long[] seenGens = new long[m];
    if (m < PARALLEL_THRESHOLD) {
      for (int j = 0; j < m; j++) {
        seenGens[j] = countNode(pod, constraints, nodes, misses[j], affinity, namespace);
      }
    } else {
      parallelizer.until(m, j ->
          seenGens[j] = countNode(pod, constraints, nodes, misses[j], affinity, namespace));
    }
    for (int j = 0; j < m; j++) {
      int s = misses[j];
      int base = s * k;
      if (counts[base] != LACKS_KEYS) {
        for (int i = 0; i < k; i++) {
          if (counts[base + i] >= 0) {
            domains[base + i] = intern(i, values[base + i]);
          }
          values[base + i] = null;
        }
      }
      gens[s] = seenGens[j];
    }
  }

  /** Counts one node into position {@code s}; returns the generation it counted. */
  private long countNode(Pod pod, List<SpreadConstraint> constraints, List<NodeInfo> nodes, int s,
      Predicate<Node> affinity, String namespace) {
    NodeInfo nodeInfo = nodes.get(s);
    long generation = nodeInfo.generation();
    Node node = nodeInfo.getNode();
    Map<String, String> labels = SpreadConstraint.labelsOf(node);
    int base = s * k;
    if (!SpreadConstraint.hasAllTopologyKeys(labels, constraints)) {
      counts[base] = LACKS_KEYS;
      return generation;
    }
    for (int i = 0; i < k; i++) {
      SpreadConstraint c = constraints.get(i);
      if (c.includesNode(pod, node, affinity)) {
        counts[base + i] = c.countMatchingPods(nodeInfo, namespace);
        values[base + i] = labels.get(c.topologyKey());
      } else {
        counts[base + i] = EXCLUDED;
      }
    }
    return generation;
  }

  private int intern(int i, String value) {
    Integer id = ids.get(i).get(value);
    if (id == null) {
      id = names.get(i).size();
      names.get(i).add(value);
      ids.get(i).put(value, id);
    }
    return id;
  }

  private DomainCounts[] sum(int n) {
    int[][] nums = new int[k][];
    boolean[][] seen = new boolean[k][];
    int[][] order = new int[k][];
    int[] orderSize = new int[k];
    for (int i = 0; i < k; i++) {
      int domainCount = names.get(i).size();
      nums[i] = new int[domainCount];
      seen[i] = new boolean[domainCount];
      order[i] = new int[domainCount];
    }
    for (int s = 0; s < n; s++) {
      int base = s * k;
      if (counts[base] == LACKS_KEYS) {
        continue;
      }
      for (int i = 0; i < k; i++) {
        int c = counts[base + i];
        if (c < 0) {
          continue;
        }
        int d = domains[base + i];
        if (!seen[i][d]) {
          seen[i][d] = true;
          order[i][orderSize[i]++] = d;
        }
        nums[i][d] += c;
      }
    }
    DomainCounts[] out = new DomainCounts[k];
    for (int i = 0; i < k; i++) {
      int[] o = Arrays.copyOf(order[i], orderSize[i]);
      Map<String, Integer> map = lastIds.get(i);
      if (map == null || !Arrays.equals(o, lastOrder[i])) {
        map = new HashMap<>();
        for (int d : o) {
          map.put(names.get(i).get(d), d);
        }
        lastIds.set(i, map);
        lastOrder[i] = o;
      }
      out[i] = new DomainCounts(map, nums[i]);
    }
    return out;
  }

  private void ensureCapacity(int n) {
    if (gens.length != n) {
      gens = Arrays.copyOf(gens, n);
      counts = Arrays.copyOf(counts, n * k);
      domains = Arrays.copyOf(domains, n * k);
      values = Arrays.copyOf(values, n * k);
      misses = new int[n];
    }
  }
}
