package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PodHeapTest {
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** Random adds, replacements and removals, checked after each step against a sorted model. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 42, 2024})
  void heapAgreesWithASortedModel(long seed) {
    Random random = new Random(seed);
    PrioritySortForTest sort = new PrioritySortForTest();
    PodHeap heap = new PodHeap(sort::less);
    Map<String, QueuedPodInfo> model = new HashMap<>();
    Comparator<QueuedPodInfo> order = (a, b) -> sort.less(a, b) ? -1 : sort.less(b, a) ? 1
        : a.key().compareTo(b.key());

    PodInfo[][] pods = new PodInfo[60][5];
    for (int i = 0; i < 60; i++) {
      for (int prio = 0; prio < 5; prio++) {
        pods[i][prio] = PodInfo.of(TestPods.withPriority("p" + i, prio));
      }
    }

    for (int step = 0; step < 1_000; step++) {
      int i = random.nextInt(60);
      String name = "p" + i;
      String key = "default/" + name;
      switch (random.nextInt(4)) {
        case 0, 1 -> {
          // Distinct timestamps keep the order total, so the head is unique.
          QueuedPodInfo p = new QueuedPodInfo(pods[i][random.nextInt(5)], T0.plusNanos(step));
          heap.addOrUpdate(p);
          model.put(key, p);
        }
        case 2 -> assertThat(heap.remove(key)).isSameAs(model.remove(key));
        default -> {
          QueuedPodInfo head = heap.pop();
          if (model.isEmpty()) {
            assertThat(head).isNull();
          } else {
            QueuedPodInfo expected = model.values().stream().min(order).orElseThrow();
            assertThat(head).isSameAs(expected);
            model.remove(head.key());
          }
        }
      }
      assertThat(heap.size()).isEqualTo(model.size());
      for (Map.Entry<String, QueuedPodInfo> e : model.entrySet()) {
        if (heap.get(e.getKey()) != e.getValue()) {
          throw new AssertionError("step " + step + ": index lost " + e.getKey());
        }
      }
    }
    List<QueuedPodInfo> drained = new ArrayList<>();
    while (!heap.isEmpty()) {
      drained.add(heap.pop());
    }
    assertThat(drained).isSortedAccordingTo(order);
  }
}
