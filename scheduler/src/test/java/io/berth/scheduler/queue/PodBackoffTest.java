package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class PodBackoffTest {
  private final PodBackoff backoff = new PodBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10));

  @ParameterizedTest(name = "attempt {0} -> {1} ms")
  @CsvSource({"0, 0", "1, 1000", "2, 2000", "3, 4000", "4, 8000", "5, 10000", "6, 10000",
      "1000, 10000", "2147483647, 10000"})
  void backoffDoublesFromInitialUpToMax(int attempts, long millis) {
    assertThat(backoff.duration(attempts)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void expiryCountsFromTheQueueTimestamp() {
    Instant t = Instant.parse("2024-01-01T00:00:00Z");
    QueuedPodInfo p = new QueuedPodInfo(PodInfo.of(TestPods.named("a")), t);
    p.incrementAttempts();
    p.incrementAttempts();

    assertThat(backoff.expiry(p)).isEqualTo(t.plusSeconds(2));
    assertThat(backoff.isBackingOff(p, t.plusMillis(1999))).isTrue();
    assertThat(backoff.isBackingOff(p, t.plusSeconds(2))).isFalse();
  }

  @Test
  void gatedPodIsNeverBackingOff() {
    Instant t = Instant.parse("2024-01-01T00:00:00Z");
    QueuedPodInfo p = new QueuedPodInfo(PodInfo.of(TestPods.named("a")), t);
    p.incrementAttempts();
    p.setGatingPlugin("SchedulingGates");

    assertThat(backoff.isBackingOff(p, t)).isFalse();
  }

  @Test
  void negativeDurationsAreRejected() {
    assertThatThrownBy(() -> new PodBackoff(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
