package io.berth.plugins.queuesort;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodInfo;
import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrioritySortTest {
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private final QueueSortPlugin sort = (QueueSortPlugin) PrioritySort.create(Map.of(), null);

  // upstream's queue_sort_test.go
  @Test
  void lowerPriorityIsNotLess() {
    assertThat(sort.less(queued("p1", 1, T0), queued("p2", 2, T0.plusSeconds(1)))).isFalse();
  }

  @Test
  void higherPriorityIsLessEvenIfAddedLater() {
    assertThat(sort.less(queued("p1", 2, T0.plusSeconds(1)), queued("p2", 1, T0))).isTrue();
  }

  @Test
  void equalPriorityAddedEarlierIsLess() {
    assertThat(sort.less(queued("p1", 2, T0), queued("p2", 2, T0.plusSeconds(1)))).isTrue();
  }

  @Test
  void equalPriorityAddedLaterIsNotLess() {
    assertThat(sort.less(queued("p1", 2, T0.plusSeconds(1)), queued("p2", 2, T0))).isFalse();
  }

  @Test
  void sameInstantAndPriorityIsNotLessEitherWay() {
    QueuedPodInfo a = queued("a", 5, T0);
    QueuedPodInfo b = queued("b", 5, T0);
    assertThat(sort.less(a, b)).isFalse();
    assertThat(sort.less(b, a)).isFalse();
  }

  @Test
  void absentPriorityCountsAsZero() {
    QueuedPodInfo none = queued("none", null, T0.plusSeconds(5));
    assertThat(sort.less(none, queued("neg", -1, T0))).isTrue();
    assertThat(sort.less(queued("pos", 1, T0.plusSeconds(9)), none)).isTrue();
    assertThat(PrioritySort.podPriority(none.pod())).isZero();
  }

  @Test
  void sortsAQueueByPriorityThenAge() {
    List<QueuedPodInfo> pods = new ArrayList<>(List.of(
        queued("low-old", 0, T0), queued("high-new", 10, T0.plusSeconds(3)),
        queued("low-new", 0, T0.plusSeconds(2)), queued("high-old", 10, T0.plusSeconds(1))));

    pods.sort((x, y) -> sort.less(x, y) ? -1 : sort.less(y, x) ? 1 : 0);

    assertThat(pods).extracting(p -> p.pod().getMetadata().getName())
        .containsExactly("high-old", "high-new", "low-old", "low-new");
    assertThat(sort.name()).isEqualTo(PrioritySort.NAME).isEqualTo("PrioritySort");
  }

  private static QueuedPodInfo queued(String name, Integer priority, Instant at) {
    return new QueuedPodInfo(PodInfo.of(new PodBuilder().withNewMetadata().withName(name)
        .withNamespace("default").withUid(name).endMetadata()
        .withNewSpec().withPriority(priority).endSpec().build()), at);
  }
}
