package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationsTest {

  @ParameterizedTest
  @CsvSource({
      "15s, 15000000000",
      "1m30s, 90000000000",
      "500ms, 500000000",
      "1.5h, 5400000000000",
      "2h45m, 9900000000000",
      "0, 0",
      "-0, 0",
      "+5s, 5000000000",
      "-1.5s, -1500000000",
      "1us, 1000",
      "1\u00b5s, 1000",
      "1\u03bcs, 1000",
      "3ns, 3",
      "1.9ns, 1",
      ".5s, 500000000",
      "1.s, 1000000000",
      "1h1m1s1ms1us1ns, 3661001001001",
      "9223372036854775807ns, 9223372036854775807"
  })
  void parsesWhatGoParses(String text, long nanos) {
    assertThat(GoDurations.parse(text)).isEqualTo(Duration.ofNanos(nanos));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "s", "15", "1.5", ".s", "-", "15 s", "15S", "1d", "1m 30s", "1m30", "abc",
      "9223372036854775808ns", "3000000h"})
  void rejectsWhatGoRejects(String text) {
    assertThatThrownBy(() -> GoDurations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + text + "\"");
  }

  @ParameterizedTest
  @CsvSource({
      "0, 0s",
      "15000000000, 15s",
      "90000000000, 1m30s",
      "500000000, 500ms",
      "1500000, 1.5ms",
      "1500, 1.5\u00b5s",
      "7, 7ns",
      "3723500000000, 1h2m3.5s",
      "3600000000000, 1h0m0s",
      "-2000000000, -2s"
  })
  void formatsLikeGo(long nanos, String text) {
    assertThat(GoDurations.format(Duration.ofNanos(nanos))).isEqualTo(text);
  }

  @ParameterizedTest
  @ValueSource(strings = {"15s", "1m30s", "500ms", "1h2m3.5s", "1.5\u00b5s", "7ns"})
  void formatThenParseIsTheIdentity(String text) {
    assertThat(GoDurations.format(GoDurations.parse(text))).isEqualTo(text);
  }
}
