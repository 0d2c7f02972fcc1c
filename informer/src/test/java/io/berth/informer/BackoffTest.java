package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private final FakeClock clock = new FakeClock();

  private static List<Long> millis(Backoff backoff, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(backoff.next().toMillis());
    }
    return out;
  }

  @Test
  void doublesFrom800MillisUpTo30SecondsWithoutJitter() {
    Backoff backoff = Backoff.reflectorDefault(clock, () -> 0.0);
    assertThat(millis(backoff, 9))
        .containsExactly(800L, 1600L, 3200L, 6400L, 12800L, 25600L, 30000L, 30000L, 30000L);
  }

  @Test
  void jitterStretchesEachDelayByUpToItsBase() {
    Backoff half = Backoff.reflectorDefault(clock, () -> 0.5);
    assertThat(millis(half, 3)).containsExactly(1200L, 2400L, 4800L);
    Backoff almostDouble = Backoff.reflectorDefault(new FakeClock(), () -> 0.999);
    List<Long> delays = millis(almostDouble, 8);
    assertThat(delays.get(0)).isBetween(1590L, 1600L);
    // the base is capped at 30 s, so a jittered delay never reaches 60 s
    assertThat(delays.get(7)).isBetween(59_900L, 59_999L);
  }

  @Test
  void resetsToInitialAfterTwoQuietMinutes() {
    Backoff backoff = Backoff.reflectorDefault(clock, () -> 0.0);
    millis(backoff, 4);
    clock.advance(Duration.ofMinutes(1));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(12800));
    clock.advance(Duration.ofMinutes(2).plusMillis(1));
    assertThat(backoff.next()).isEqualTo(Duration.ofMillis(800));
  }
}
