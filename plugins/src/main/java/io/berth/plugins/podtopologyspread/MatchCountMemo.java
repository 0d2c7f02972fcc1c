package io.berth.plugins.podtopologyspread;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * PreScore's per-node matching pod counts ({@link SpreadConstraint#countMatchingPods}) kept from
 * one cycle to the next, per namespace and {@link SpreadConstraint#selectorKey}, so that a cycle
 * recounts only the nodes whose {@link NodeInfo#generation()} changed. A generation comes from a
 * global counter bumped by every NodeInfo mutation and is kept by copies, so two NodeInfos with
 * the same generation hold the same pods: a node's count for a key can be reused as long as its
 * generation is unchanged. Binding a pod changes one node, so the pods of a Deployment scheduled
 * one after the other recount one node each instead of every pod of every node. Keeps the counts
 * of the last few keys, the {@link TopologyIds} of the last few topology keys (to sum the counts
 * per domain without reading every node's labels), and the position of each node name in the
 * node list last seen (for Score's per-node lookups).
 *
 * <p>Thread-safe: guarded by {@code lock}, which one {@link Session} (one PreScore call) holds
 * from {@link #open} to {@link Session#close}; a PreScore finding it held (PreScore normally runs
 * on the single scheduling thread) counts every node afresh in a session of its own.
 */
final class MatchCountMemo {
  private static final int MAX_KEYS = 8;
  /** Below this many changed nodes, recount on the calling thread. */
  private static final int PARALLEL_THRESHOLD = 32;

  /** What a node's count depends on besides the node's pods. */
  record Key(String namespace, Object selectorKey) {}

  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock; least recently used first
  private final LinkedHashMap<Key, Counts> counts = new LinkedHashMap<>(16, 0.75f, true);
  // guarded by lock; least recently used first
  private final LinkedHashMap<String, TopologyIds> topologies =
      new LinkedHashMap<>(8, 0.75f, true);
  // guarded by lock: the node names by position in the list last indexed, and the reverse
  private String[] names = new String[0];
  private final Map<String, Integer> positions = new HashMap<>();

  /** Per position in the node list: the generation counted and the count. */
  private static final class Counts {
    long[] gens = new long[0];
    int[] nums = new int[0];
  }

  /**
   * Opens a session over the memo (or, when another session holds it, over fresh counts of its
   * own); close it once the counts it handed out are no longer read.
   */
  Session open() {
    return lock.tryLock() ? new Session(true) : new Session(false);
  }

  /** One PreScore's use of the memo. Confined to the thread that opened it. */
  final class Session implements AutoCloseable {
    private final boolean locked;
    // this session's counts (refreshed once each), and, without the lock, all of them
    private final Map<Key, Counts> refreshed = new HashMap<>(4);
    private final Map<String, TopologyIds> refreshedTopologies = new HashMap<>(4);
    // the list the name index was last brought up to date with in this session
    private List<NodeInfo> indexed;
    private boolean open = true;

    private Session(boolean locked) {
      this.locked = locked;
    }

    /**
     * {@code c}'s matching pods in {@code namespace} on every node of {@code nodes}, by position,
     * as {@code c.countMatchingPods} would count them now. The array belongs to the memo: read it
     * only until this session closes, and never write it.
     */
    int[] counts(SpreadConstraint c, String namespace, List<NodeInfo> nodes,
        Parallelizer parallelizer) {
      if (!open) {
        throw new IllegalStateException("session closed");
      }
      Key key = new Key(namespace, c.selectorKey());
      Counts entry = refreshed.get(key);
      if (entry != null) {
        return entry.nums;
      }
      entry = locked ? memoized(key) : new Counts();
      refresh(entry, c, namespace, nodes, parallelizer);
      refreshed.put(key, entry);
      return entry.nums;
    }

    /**
     * The ids of every node's {@code topologyKey} value in {@code nodes}, by position, as they are
     * now. Belongs to the memo: read it only until this session closes.
     */
    TopologyIds topology(String topologyKey, List<NodeInfo> nodes) {
      if (!open) {
        throw new IllegalStateException("session closed");
      }
      TopologyIds ids = refreshedTopologies.get(topologyKey);
      if (ids != null) {
        return ids;
      }
      if (locked) {
        ids = topologies.get(topologyKey);
        if (ids == null) {
          ids = new TopologyIds(topologyKey);
          topologies.put(topologyKey, ids);
          if (topologies.size() > MAX_KEYS) {
            topologies.remove(topologies.keySet().iterator().next());
          }
        }
      } else {
        ids = new TopologyIds(topologyKey);
      }
      ids.refresh(nodes);
      refreshedTopologies.put(topologyKey, ids);
      return ids;
    }

    /**
     * The position of {@code nodeInfo} in {@code nodes} (the list {@link #counts} was given), or
     * -1 when the list does not hold that very NodeInfo.
     */
    int positionOf(NodeInfo nodeInfo, List<NodeInfo> nodes) {
      if (!locked) {
        // no shared index without the lock: scan (only ever on a concurrent PreScore)
        for (int s = 0; s < nodes.size(); s++) {
          if (nodes.get(s) == nodeInfo) {
            return s;
          }
        }
        return -1;
      }
      if (indexed != nodes) {
        reindex(nodes);
        indexed = nodes;
      }
      Integer s = positions.get(nodeInfo.nodeName());
      return s != null && nodes.get(s) == nodeInfo ? s : -1;
    }

    @Override
    public void close() {
      if (open) {
        open = false;
        if (locked) {
          lock.unlock();
        }
      }
    }
  }

  // lock held
  private Counts memoized(Key key) {
    Counts entry = counts.get(key);
    if (entry == null) {
      entry = new Counts();
      counts.put(key, entry);
      if (counts.size() > MAX_KEYS) {
        counts.remove(counts.keySet().iterator().next());
      }
    }
    return entry;
  }

  // lock held; rebuilds the name index when a position holds another name than last time
  private void reindex(List<NodeInfo> nodes) {
    int n = nodes.size();
    boolean same = names.length == n;
    for (int s = 0; same && s < n; s++) {
      String name = nodes.get(s).nodeName();
      // copies of a NodeInfo share its name's String: the identity test nearly always decides
      same = name == names[s] || name.equals(names[s]);
    }
    if (same) {
      return;
    }
    names = new String[n];
    positions.clear();
    for (int s = 0; s < n; s++) {
      names[s] = nodes.get(s).nodeName();
      positions.put(names[s], s);
    }
  }

  private static void refresh(Counts entry, SpreadConstraint c, String namespace,
      List<NodeInfo> nodes, Parallelizer parallelizer) {
    int n = nodes.size();
    if (entry.gens.length != n) {
      entry.gens = Arrays.copyOf(entry.gens, n);
      entry.nums = Arrays.copyOf(entry.nums, n);
    }
    int[] misses = new int[n];
    int m = 0;
    for (int s = 0; s < n; s++) {
      // generation 0 is never handed out, so fresh slots always miss
      if (entry.gens[s] != nodes.get(s).generation()) {
        misses[m++] = s;
      }
    }
    // each piece writes only its own position; read after until() returned
    if (m < PARALLEL_THRESHOLD) {
      for (int j = 0; j < m; j++) {
        count(entry, c, namespace, nodes, misses[j]);
      }
    } else {
      parallelizer.until(m, j -> count(entry, c, namespace, nodes, misses[j]));
    }
  }

  private static void count(Counts entry, SpreadConstraint c, String namespace,
      List<NodeInfo> nodes, int s) {
    NodeInfo nodeInfo = nodes.get(s);
    long generation = nodeInfo.generation();
    entry.nums[s] = c.countMatchingPods(nodeInfo, namespace);
    entry.gens[s] = generation;
  }
}
