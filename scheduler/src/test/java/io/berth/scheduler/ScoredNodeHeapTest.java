package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ScoredNodeHeap#top}, the one-pass choice for a cycle whose remaining order is discarded,
 * picks the node the heap pops first when both draw from equally seeded generators, ties and
 * random tie-breaks included; the heap pops in best-first order.
 */
class ScoredNodeHeapTest {
  @Test
  void topIsTheHeapsFirstNodeForTheSameRandomDraws() {
    Random shapes = new Random(11);
    for (int round = 0; round < 2_000; round++) {
      int n = 1 + shapes.nextInt(40);
      List<NodeInfo> nodes = nodes(n);
      long[] scores = new long[n];
      int distinct = 1 + shapes.nextInt(4); // few distinct scores: many ties
      for (int i = 0; i < n; i++) {
        scores[i] = shapes.nextInt(distinct) * 100L;
      }
      long seed = shapes.nextLong();
      String heapTop = new ScoredNodeHeap(nodes, scores.clone(), new SplittableRandom(seed)).pop();
      int top = ScoredNodeHeap.top(scores, new SplittableRandom(seed));
      assertThat(nodes.get(top).nodeName()).as("round %d", round).isEqualTo(heapTop);
    }
  }

  @Test
  void fullTiesGoToTheLaterNodeAsInTheHeap() {
    List<NodeInfo> nodes = nodes(3);
    long[] scores = {5, 5, 5};
    // a generator that always draws the same number leaves only the position to break the tie
    java.util.random.RandomGenerator constant = () -> 42L;
    assertThat(new ScoredNodeHeap(nodes, scores, constant).pop()).isEqualTo("n2");
    assertThat(ScoredNodeHeap.top(scores, constant)).isEqualTo(2);
  }

  @Test
  void heapPopsBestFirst() {
    List<NodeInfo> nodes = nodes(5);
    ScoredNodeHeap heap = new ScoredNodeHeap(nodes, new long[] {3, 9, 1, 7, 5},
        new SplittableRandom(1));
    List<String> order = new ArrayList<>();
    while (heap.size() > 0) {
      order.add(heap.pop());
    }
    assertThat(order).containsExactly("n1", "n3", "n4", "n0", "n2");
  }

  /** Kept scores whose fresh totals the test sets; refuses nodes it has no fresh total for. */
  static final class FakeScores implements io.berth.framework.NodeScores {
    final long[] totals;
    final java.util.Map<Integer, Long> fresh = new java.util.HashMap<>();

    FakeScores(long... totals) {
      this.totals = totals;
    }

    @Override
    public long[] totals() {
      return totals;
    }

    @Override
    public java.util.OptionalLong rescore(io.berth.framework.CycleState state,
        io.fabric8.kubernetes.api.model.Pod pod, int index, NodeInfo node) {
      Long t = fresh.get(index);
      if (t == null) {
        return java.util.OptionalLong.empty();
      }
      totals[index] = t;
      return java.util.OptionalLong.of(t);
    }
  }

  @Test
  void aRefreshedNodeComesBackInTheOrderOfItsFreshScore() {
    List<NodeInfo> nodes = nodes(5);
    FakeScores kept = new FakeScores(3, 9, 1, 7, 5);
    ScoredNodeHeap heap = new ScoredNodeHeap(nodes, kept, new SplittableRandom(1));
    assertThat(heap.pop()).isEqualTo("n1");
    // n1 (9) now scores 6: behind n3 (7), before n4 (5)
    kept.fresh.put(1, 6L);
    assertThat(heap.refresh(new io.berth.framework.CycleState(), null, nodes.get(1))).isTrue();
    List<String> order = new ArrayList<>();
    String popped = heap.pop();
    order.add(popped);
    // and a node whose fresh score is the best comes straight back on top
    kept.fresh.put(3, 8L);
    assertThat(heap.refresh(new io.berth.framework.CycleState(), null, nodes.get(3))).isTrue();
    while (heap.size() > 0) {
      order.add(heap.pop());
    }
    assertThat(order).containsExactly("n3", "n3", "n1", "n4", "n0", "n2");
  }

  @Test
  void aRefreshIsRefusedForANodeStillInTheHeapUnknownOrUnscorable() {
    List<NodeInfo> nodes = nodes(3);
    FakeScores kept = new FakeScores(3, 9, 1);
    ScoredNodeHeap heap = new ScoredNodeHeap(nodes, kept, new SplittableRandom(1));
    kept.fresh.put(0, 50L);
    kept.fresh.put(1, 50L);
    // n0 was never handed out
    assertThat(heap.refresh(new io.berth.framework.CycleState(), null, nodes.get(0))).isFalse();
    assertThat(heap.refresh(new io.berth.framework.CycleState(), null, nodes(7).get(6)))
        .isFalse();
    assertThat(heap.pop()).isEqualTo("n1");
    assertThat(heap.pop()).isEqualTo("n0");
    // n0 handed out but its scores refuse: it stays out
    kept.fresh.remove(0);
    assertThat(heap.refresh(new io.berth.framework.CycleState(), null, nodes.get(0))).isFalse();
    assertThat(heap.size()).isEqualTo(1);
    // without kept scores there is nothing to refresh with
    ScoredNodeHeap plain = new ScoredNodeHeap(nodes, new long[] {1, 2, 3}, new SplittableRandom(1));
    plain.pop();
    assertThat(plain.refresh(new io.berth.framework.CycleState(), null, nodes.get(2))).isFalse();
  }

  @Test
  void discardedNodesOnlyTellTheirCount() {
    var discarded = ScoredNodeHeap.discarded(4);
    assertThat(discarded.size()).isEqualTo(4);
    assertThatThrownBy(discarded::pop).isInstanceOf(UnsupportedOperationException.class);
  }

  private static List<NodeInfo> nodes(int n) {
    List<NodeInfo> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(NodeInfo.of(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata()
          .build()));
    }
    return out;
  }
}
