package io.berth.scheduler;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.NodeScores;
import io.berth.framework.SortedScoredNodes;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * A cycle's scored nodes as a max-heap, as upstream's {@code sortedNodeScores}: highest total
 * score first, ties broken by a random number drawn per node (upstream's {@code Randomizer}), then
 * by the later position in the feasible list (so that with a constant generator the order is the
 * one the reservoir sampling of {@link SchedulingAlgorithm#selectHost} picks from). Heapified in
 * O(n); each {@link #pop()} is O(log n). Built over a pass's kept per-plugin scores it can take
 * a handed-out node back with a fresh score in O(log n) ({@link #refresh}: a group cycle's
 * batch). Not thread-safe: built and consumed on the scheduling thread, then handed to the
 * profile's batch on the same thread.
 */
final class ScoredNodeHeap implements SortedScoredNodes {
  private final String[] names;
  private final long[] scores;
  private final int[] randomizers;
  private final int[] heap;
  // the per-plugin scores behind {@code scores} (which is their totals array), or null
  private final NodeScores kept;
  // node name -> index, built at the first refresh
  private Map<String, Integer> indexes;
  // index -> whether it is still in the heap, allocated at the first refresh
  private boolean[] inHeap;
  private int size;

  ScoredNodeHeap(List<NodeInfo> nodes, long[] scores, RandomGenerator random) {
    this(nodes, scores, null, random);
  }

  /**
   * A heap over {@code kept}'s totals that can take a handed-out node back with a fresh score
   * ({@link #refresh}).
   */
  ScoredNodeHeap(List<NodeInfo> nodes, NodeScores kept, RandomGenerator random) {
    this(nodes, kept.totals(), kept, random);
  }

  private ScoredNodeHeap(List<NodeInfo> nodes, long[] scores, NodeScores kept,
      RandomGenerator random) {
    int n = nodes.size();
    this.names = new String[n];
    this.scores = scores;
    this.kept = kept;
    this.randomizers = new int[n];
    this.heap = new int[n];
    for (int i = 0; i < n; i++) {
      names[i] = nodes.get(i).nodeName();
      randomizers[i] = random.nextInt();
      heap[i] = i;
    }
    this.size = n;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  /**
   * The index of the node a heap of these scores would put on top, found in one pass with the
   * same random draws (one per node, in order) the heap makes: for a cycle whose remaining order
   * nobody keeps (an unsignable pod), this picks the same node without building the heap.
   */
  static int top(long[] scores, RandomGenerator random) {
    int best = 0;
    int bestRandom = random.nextInt();
    for (int i = 1; i < scores.length; i++) {
      int r = random.nextInt();
      // a later node wins a full tie, as in before()
      if (scores[i] > scores[best] || (scores[i] == scores[best] && r >= bestRandom)) {
        best = i;
        bestRandom = r;
      }
    }
    return best;
  }

  /**
   * Stands for the {@code size} remaining nodes of a cycle whose order is not kept (the batch
   * discards them for an unsignable pod): only its size can be read.
   */
  static SortedScoredNodes discarded(int size) {
    return new SortedScoredNodes() {
      @Override
      public String pop() {
        throw new UnsupportedOperationException("the remaining nodes were not sorted");
      }

      @Override
      public int size() {
        return size;
      }
    };
  }

  @Override
  public String pop() {
    if (size == 0) {
      throw new java.util.NoSuchElementException("no scored nodes left");
    }
    int top = heap[0];
    size--;
    if (size > 0) {
      heap[0] = heap[size];
      siftDown(0);
    }
    if (inHeap != null) {
      inHeap[top] = false;
    }
    return names[top];
  }

  /**
   * Re-scores a handed-out node through the kept per-plugin scores and pushes it back: the heap
   * is then what it would be had the node had its fresh score from the start (same random
   * tie-break). False without kept scores, for a node not of this cycle or still in the heap, or
   * when the scores refuse ({@link NodeScores#rescore}).
   */
  @Override
  public boolean refresh(CycleState state, Pod pod, NodeInfo node) {
    if (kept == null) {
      return false;
    }
    if (indexes == null) {
      indexes = new HashMap<>(names.length * 2);
      for (int i = 0; i < names.length; i++) {
        indexes.put(names[i], i);
      }
      // everything not in heap[0, size) was handed out
      inHeap = new boolean[names.length];
      for (int i = 0; i < size; i++) {
        inHeap[heap[i]] = true;
      }
    }
    Integer index = indexes.get(node.nodeName());
    if (index == null || inHeap[index]) {
      return false;
    }
    if (kept.rescore(state, pod, index, node).isEmpty()) {
      return false;
    }
    // kept's totals are this heap's scores: the fresh total is in place
    heap[size] = index;
    inHeap[index] = true;
    siftUp(size++);
    return true;
  }

  @Override
  public int size() {
    return size;
  }

  /** Whether node {@code a} comes before node {@code b}. */
  private boolean before(int a, int b) {
    if (scores[a] != scores[b]) {
      return scores[a] > scores[b];
    }
    if (randomizers[a] != randomizers[b]) {
      return randomizers[a] > randomizers[b];
    }
    return a > b;
  }

  private void siftUp(int i) {
    int x = heap[i];
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (!before(x, heap[parent])) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = x;
  }

  private void siftDown(int i) {
    int x = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && before(heap[child + 1], heap[child])) {
        child++;
      }
      if (!before(heap[child], x)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = x;
  }
}
