package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * backoffQ's heaps on their own (upstream's backoff_queue_test.go): which pods a flush takes and
 * in which order, with SchedulerPopFromBackoffQ on (one-second windows ordered by priority, error
 * backoff apart) and off (v1.32: expiry, QueueSort on a tie).
 */
class BackoffQueueOrderingTest {
  /** A whole second, as upstream aligns its fake clock with the ordering window. */
  private static final Instant NOW = Instant.parse("2024-01-01T00:00:00Z");

  private static BackoffQueue backoffQueue(boolean popFromBackoffQ) {
    PodBackoff backoff = new PodBackoff(SchedulingQueue.DEFAULT_POD_INITIAL_BACKOFF,
        SchedulingQueue.DEFAULT_POD_MAX_BACKOFF, popFromBackoffQ);
    return new BackoffQueue(backoff, new PrioritySortForTest(), popFromBackoffQ);
  }

  /** A pod with one attempt (1 s backoff) queued at {@code timestamp}; no plugins: an error. */
  private static QueuedPodInfo queued(String name, int priority, Instant timestamp,
      String... rejectors) {
    QueuedPodInfo p = new QueuedPodInfo(PodInfo.of(TestPods.withPriority(name, priority)),
        timestamp);
    p.incrementAttempts();
    p.unschedulablePlugins().addAll(List.of(rejectors));
    return p;
  }

  private static List<String> flush(BackoffQueue bq) {
    List<String> out = new ArrayList<>();
    bq.popEachCompleted(NOW, p -> out.add(p.pod().getMetadata().getName()));
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamOrderingCases")
  void podsInTheSameWindowComeOutByPriorityOnlyWithPopFromBackoffQ(String name,
      boolean popFromBackoffQ, List<String> want) {
    BackoffQueue bq = backoffQueue(popFromBackoffQ);
    bq.add(queued("pod0", 1, NOW, "plugin"));
    bq.add(queued("pod1", 1, NOW.minusSeconds(1), "plugin"));
    bq.add(queued("pod2", 2, NOW.minusSeconds(2).plusMillis(1), "plugin"));
    bq.add(queued("pod3", 1, NOW.minusSeconds(2), "plugin"));
    bq.add(queued("pod4", 2, NOW.minusSeconds(2), "plugin"));
    bq.add(queued("pod5", 1, NOW.minusSeconds(3), "plugin"));

    assertThat(flush(bq)).containsExactlyElementsOf(want);
  }

  static Stream<Arguments> upstreamOrderingCases() {
    return Stream.of(
        Arguments.of("windows ordered by priority when enabled", true,
            List.of("pod5", "pod4", "pod2", "pod3")),
        // v1.32 (kept with the gate off): exact expiry, then QueueSort; a pod whose backoff ends
        // exactly now (pod1) is done, where upstream 1.33+ keeps it for the window.
        Arguments.of("exact expiry when disabled", false,
            List.of("pod5", "pod4", "pod3", "pod2", "pod1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamPopAllCases")
  void aFlushTakesTheCompletedPodsOfBothHeaps(String name, List<String> inBackoff,
      List<String> want) {
    for (boolean popFromBackoffQ : new boolean[] {true, false}) {
      Map<String, QueuedPodInfo> pods = new LinkedHashMap<>();
      pods.put("pod0", queued("pod0", 0, NOW.minusSeconds(2), "plugin"));
      pods.put("pod1", queued("pod1", 0, NOW.plusSeconds(1), "plugin"));
      pods.put("pod2", queued("pod2", 0, NOW.minusSeconds(2)));
      pods.put("pod3", queued("pod3", 0, NOW.plusSeconds(1)));
      BackoffQueue bq = backoffQueue(popFromBackoffQ);
      inBackoff.forEach(n -> bq.add(pods.get(n)));

      List<String> got = flush(bq);

      assertThat(got).as("popFromBackoffQ=%s", popFromBackoffQ).containsExactlyElementsOf(want);
      assertThat(bq.size()).isEqualTo(inBackoff.size() - want.size());
    }
  }

  static Stream<Arguments> upstreamPopAllCases() {
    return Stream.of(
        Arguments.of("both heaps empty", List.of(), List.of()),
        Arguments.of("rejected pods only", List.of("pod0", "pod1"), List.of("pod0")),
        Arguments.of("errored pods only", List.of("pod2", "pod3"), List.of("pod2")),
        Arguments.of("both, some completed", List.of("pod0", "pod1", "pod2", "pod3"),
            List.of("pod0", "pod2")),
        Arguments.of("both, all completed", List.of("pod0", "pod2"), List.of("pod0", "pod2")),
        Arguments.of("both, none completed", List.of("pod1", "pod3"), List.of()));
  }

  @Test
  void popBackoffServesTheHeadOfPodBackoffQNeverAnErroredPod() {
    BackoffQueue bq = backoffQueue(true);
    bq.add(queued("errored", 9, NOW.minusSeconds(5)));
    bq.add(queued("later", 5, NOW.plusSeconds(3), "plugin"));
    bq.add(queued("sooner-low", 1, NOW.plusSeconds(1), "plugin"));
    bq.add(queued("sooner-high", 2, NOW.plusSeconds(1).plusMillis(900), "plugin"));

    assertThat(bq.hasPoppable()).isTrue();
    assertThat(bq.popBackoff().pod().getMetadata().getName()).isEqualTo("sooner-high");
    assertThat(bq.popBackoff().pod().getMetadata().getName()).isEqualTo("sooner-low");
    assertThat(bq.popBackoff().pod().getMetadata().getName()).isEqualTo("later");
    assertThat(bq.hasPoppable()).isFalse();
    assertThat(bq.popBackoff()).isNull();
    assertThat(bq.size()).isEqualTo(1);
    assertThat(bq.contains("default/errored")).isTrue();
  }

  @Test
  void withTheGateOffNothingIsPoppedEarly() {
    BackoffQueue bq = backoffQueue(false);
    bq.add(queued("a", 0, NOW, "plugin"));

    assertThat(bq.hasPoppable()).isFalse();
    assertThat(bq.popBackoff()).isNull();
    assertThat(bq.size()).isEqualTo(1);
  }

  @Test
  void aPodMovesBetweenHeapsWhenItsRejectorsChange() {
    BackoffQueue bq = backoffQueue(true);
    QueuedPodInfo a = queued("a", 0, NOW);
    bq.add(a);
    assertThat(bq.hasPoppable()).as("errored: error heap").isFalse();

    a.unschedulablePlugins().add("Fit");
    bq.add(a);

    assertThat(bq.size()).isEqualTo(1);
    assertThat(bq.popBackoff()).isSameAs(a);
    assertThat(bq.size()).isZero();
  }

  @Test
  void alignedExpiryEndsAtTheWindowAfterIt() {
    PodBackoff backoff = new PodBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10), true);
    QueuedPodInfo p = queued("a", 0, NOW.plusMillis(300), "plugin");

    assertThat(backoff.expiry(p)).isEqualTo(NOW.plusSeconds(1));
    assertThat(backoff.isBackingOff(p, NOW.plusMillis(1999))).isTrue();
    assertThat(backoff.isBackingOff(p, NOW.plusSeconds(2))).isFalse();
  }

  @Test
  void aNeverAttemptedPodHasNoBackoffWhenAligned() {
    PodBackoff backoff = new PodBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10), true);
    QueuedPodInfo p = new QueuedPodInfo(PodInfo.of(TestPods.named("a")), NOW.plusMillis(300));

    assertThat(backoff.isBackingOff(p, NOW.plusMillis(400))).isFalse();
  }

  @Test
  void theCachedExpiryFollowsTimestampAndAttempts() {
    PodBackoff backoff = new PodBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10), false);
    QueuedPodInfo p = queued("a", 0, NOW, "plugin");
    assertThat(backoff.expiry(p)).isEqualTo(NOW.plusSeconds(1));

    p.incrementAttempts();
    assertThat(backoff.expiry(p)).isEqualTo(NOW.plusSeconds(2));
    p.setTimestamp(NOW.plusSeconds(5));
    assertThat(backoff.expiry(p)).isEqualTo(NOW.plusSeconds(7));
  }
}
