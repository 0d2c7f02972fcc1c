package io.berth.controller;

import static io.berth.controller.PodFixture.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodsTest {

  private static final Instant READY = Instant.parse("2025-06-01T12:00:00Z");

  @Test
  void aPodIsAvailableOnlyOnceReadyForStrictlyMoreThanMinReadySeconds() {
    Pod pod = pod("a").runningReady("n1", READY).build();
    assertThat(Pods.isAvailable(pod, 0, READY)).isTrue();
    assertThat(Pods.isAvailable(pod, 10, READY.plusSeconds(9))).isFalse();
    assertThat(Pods.isAvailable(pod, 10, READY.plusSeconds(10))).as("upstream needs Before(now)").isFalse();
    assertThat(Pods.isAvailable(pod, 10, READY.plusSeconds(10).plusNanos(1))).isTrue();
  }

  @Test
  void anUnreadyPodIsNeverAvailable() {
    Pod pod = pod("a").onNode("n1").phase(Pods.PHASE_RUNNING).notReady().build();
    assertThat(Pods.isReady(pod)).isFalse();
    assertThat(Pods.isAvailable(pod, 0, READY)).isFalse();
  }

  @Test
  void activePodsExcludeSucceededFailedAndTerminatingOnes() {
    Pod running = pod("running").runningReady("n1", READY).build();
    Pod pending = pod("pending").build();
    Pod succeeded = pod("succeeded").phase(Pods.PHASE_SUCCEEDED).build();
    Pod failed = pod("failed").phase(Pods.PHASE_FAILED).build();
    Pod terminating = pod("terminating").runningReady("n1", READY).deleting().build();
    assertThat(Pods.filterActive(List.of(running, succeeded, pending, failed, terminating)))
        .containsExactly(running, pending);
  }

  @Test
  void theReadyTimeIsTheLastTransitionOfATrueReadyCondition() {
    assertThat(Pods.readyTime(pod("a").runningReady("n1", READY).build())).contains(READY);
    assertThat(Pods.readyTime(pod("b").notReady().build())).isEmpty();
    assertThat(Pods.parseTime("not a time")).isEmpty();
    assertThat(Pods.key(pod("c").namespace("ns").build())).isEqualTo("ns/c");
  }
}
