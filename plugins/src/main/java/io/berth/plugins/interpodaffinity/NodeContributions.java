package io.berth.plugins.interpodaffinity;

import io.berth.framework.NodeInfo;
import io.berth.framework.Parallelizer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * PreFilter's per-node topology counts kept from one cycle to the next, so that a cycle only
 * recounts the nodes whose {@link NodeInfo#generation()} changed. A generation comes from a global
 * counter bumped by every NodeInfo mutation and is kept by copies, so two NodeInfos with the same
 * generation hold the same node and pods: what a node contributes for a given key (everything
 * else the count depends on) can be reused while its generation is unchanged. Keeps the per-node
 * results of the last few keys.
 *
 * <p>Thread-safe: the plugin holds one instance per kind of count; {@link #sum} uses the cached
 * results under {@code lock}, and a caller finding it busy (PreFilter normally runs on the single
 * scheduling thread) counts every node afresh. Parallel workers each write only their own node's
 * slot, read after {@link Parallelizer#until} has returned.
 */
final class NodeContributions {
  private static final int MAX_KEYS = 4;
  private static final int PARALLEL_THRESHOLD = 32;

  /** Adds what one node contributes into {@code into} (one TopologyCounts per output). */
  @FunctionalInterface
  interface Counter {
    void count(NodeInfo nodeInfo, TopologyCounts[] into);
  }

  private final int outputs;
  private final ReentrantLock lock = new ReentrantLock();
  // guarded by lock; least recently used first
  private final LinkedHashMap<Object, Entry> entries = new LinkedHashMap<>(8, 0.75f, true);

  NodeContributions(int outputs) {
    this.outputs = outputs;
  }

  /** Per position in the node list: the generation counted and the counts (null when none). */
  private static final class Entry {
    long[] gens = new long[0];
    // index position * outputs + output
    Map<TopologyPair, Long>[] counts = newCounts(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<TopologyPair, Long>[] newCounts(int size) {
    return new Map[size];
  }

  /**
   * The sums over {@code nodes} of what {@code counter} counts per node, one TopologyCounts per
   * output; {@code key} must determine the counter's result for a given NodeInfo (empty: no
   * reuse).
   */
  TopologyCounts[] sum(Optional<Object> key, List<NodeInfo> nodes, Parallelizer parallelizer,
      Counter counter) {
    if (key.isEmpty() || !lock.tryLock()) {
      return sum(new Entry(), nodes, parallelizer, counter);
    }
    try {
      Entry e = entries.get(key.get());
      if (e == null) {
        e = new Entry();
        entries.put(key.get(), e);
        if (entries.size() > MAX_KEYS) {
          entries.remove(entries.keySet().iterator().next());
        }
      }
      return sum(e, nodes, parallelizer, counter);
    } finally {
      lock.unlock();
    }
  }

  private TopologyCounts[] sum(Entry e, List<NodeInfo> nodes, Parallelizer parallelizer,
      Counter counter) {
    int n = nodes.size();
    if (e.gens.length != n) {
      e.gens = Arrays.copyOf(e.gens, n);
      e.counts = Arrays.copyOf(e.counts, n * outputs);
    }
    int[] misses = new int[n];
    int m = 0;
    for (int s = 0; s < n; s++) {
      if (e.gens[s] != nodes.get(s).generation()) {
        misses[m++] = s;
      }
    }
    int missCount = m;
    if (missCount < PARALLEL_THRESHOLD) {
      for (int j = 0; j < missCount; j++) {
        countNode(e, nodes, misses[j], counter);
      }
    } else {
      parallelizer.until(missCount, j -> countNode(e, nodes, misses[j], counter));
    }
    // every count is positive, so plain sums give what TopologyCounts.add would
    Map<TopologyPair, Long>[] sums = newCounts(outputs);
    for (int o = 0; o < outputs; o++) {
      sums[o] = new HashMap<>();
    }
    Map<TopologyPair, Long>[] counts = e.counts;
    for (int s = 0; s < n * outputs; s++) {
      if (counts[s] != null) {
        Map<TopologyPair, Long> target = sums[s % outputs];
        counts[s].forEach((pair, c) -> target.merge(pair, c, Long::sum));
      }
    }
    TopologyCounts[] out = new TopologyCounts[outputs];
    for (int o = 0; o < outputs; o++) {
      out[o] = TopologyCounts.of(sums[o]);
    }
    return out;
  }

  private void countNode(Entry e, List<NodeInfo> nodes, int s, Counter counter) {
    NodeInfo nodeInfo = nodes.get(s);
    long generation = nodeInfo.generation();
    TopologyCounts[] local = new TopologyCounts[outputs];
    for (int o = 0; o < outputs; o++) {
      local[o] = new TopologyCounts();
    }
    counter.count(nodeInfo, local);
    for (int o = 0; o < outputs; o++) {
      e.counts[s * outputs + o] = local[o].isEmpty() ? null : local[o].asMap();
    }
    e.gens[s] = generation;
  }
}
