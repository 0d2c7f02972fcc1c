package io.berth.scheduler.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

  @ParameterizedTest
  @CsvSource({
      "15s, PT15S",
      "0, PT0S",
      "-1s, PT-1S",
      "+2m, PT2M",
      "1m30s, PT1M30S",
      "1.5h, PT1H30M",
      "500ms, PT0.5S",
      "1.s, PT1S",
      ".5s, PT0.5S",
      "250us, PT0.00025S",
      "250\u00b5s, PT0.00025S",
      "7ns, PT0.000000007S",
      "1h2m3s4ms, PT1H2M3.004S"
  })
  void parsesGoDurations(String text, Duration expected) {
    assertThat(GoDuration.parse(text)).contains(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "15", "s", "1x", "1.2.3s", ".s", "15 s", "-", "1h-5m",
      "9999999999999999999h"})
  void rejectsWhatGoRejects(String text) {
    assertThat(GoDuration.parse(text)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
      "PT0S, 0s",
      "PT15S, 15s",
      "PT1M30S, 1m30s",
      "PT1H, 1h0m0s",
      "PT2.4S, 2.4s",
      "PT0.5S, 500ms",
      "PT0.0015S, 1.5ms",
      "PT0.000002S, 2\u00b5s",
      "PT0.000000007S, 7ns",
      "PT-10S, -10s"
  })
  void formatsLikeGo(Duration duration, String expected) {
    assertThat(GoDuration.format(duration)).isEqualTo(expected);
  }
}
