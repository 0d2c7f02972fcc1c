package io.berth.plugins.defaultpreemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StartTimesTest {

  @Test
  void theCanonicalFormGivesTheInstantTheIsoParserGives() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 10_000; i++) {
      String text = Instant.ofEpochSecond(random.nextLong(0, 253_402_300_799L)).toString();
      assertThat(text).hasSize(20);
      assertThat(StartTimes.parse(text)).as(text).isEqualTo(OffsetDateTime.parse(text).toInstant());
    }
    assertThat(StartTimes.parse("2024-02-29T23:59:59Z")).isEqualTo(Instant.parse("2024-02-29T23:59:59Z"));
  }

  @Test
  void otherFormsGoThroughTheIsoParser() {
    assertThat(StartTimes.parse("2026-12-02T01:30:00+01:00")).isEqualTo(Instant.parse("2026-12-02T00:30:00Z"));
    assertThat(StartTimes.parse("2026-12-02T00:30:00.250Z")).isEqualTo(Instant.parse("2026-12-02T00:30:00.250Z"));
  }

  @Test
  void whatTheIsoParserRefusesIsRefused() {
    for (String bad : new String[] {"2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-02T24:00:00Z",
        "2026-12-02T00:60:00Z", "2026-12-02T00:00:60Z", "2026-1a-02T00:00:00Z", "yesterday"}) {
      assertThatThrownBy(() -> StartTimes.parse(bad)).as(bad).isInstanceOf(DateTimeException.class);
      assertThatThrownBy(() -> OffsetDateTime.parse(bad)).as(bad).isInstanceOf(DateTimeException.class);
    }
  }
}
