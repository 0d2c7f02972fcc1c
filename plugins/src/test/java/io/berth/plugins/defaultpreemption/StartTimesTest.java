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
      assertThat(StartTimes.canonicalEpochSecond(text)).as(text)
          .isEqualTo(OffsetDateTime.parse(text).toEpochSecond());
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
      assertThat(StartTimes.canonicalEpochSecond(bad)).as(bad).isEqualTo(StartTimes.NOT_CANONICAL);
    }
    assertThat(StartTimes.canonicalEpochSecond(null)).isEqualTo(StartTimes.NOT_CANONICAL);
    assertThat(StartTimes.canonicalEpochSecond("2026-12-02T00:30:00.250Z")).isEqualTo(StartTimes.NOT_CANONICAL);
  }

  /** The ordering's comparison of start times agrees with comparing the instants, whatever the forms. */
  @Test
  void startTimesCompareAsTheirInstants() {
    VictimOrdering ordering = new VictimOrdering(PreemptionRuntime.CLOCK);
    String[] texts = {"1970-01-01T00:16:40Z", "1970-01-01T00:16:39Z", "1970-01-01T01:16:40+01:00",
        "1970-01-01T00:16:40.500Z", "2026-12-02T00:30:00Z", "2026-02-30T00:00:00Z", null, ""};
    for (String a : texts) {
      for (String b : texts) {
        io.fabric8.kubernetes.api.model.Pod pa = withStart(a);
        io.fabric8.kubernetes.api.model.Pod pb = withStart(b);
        assertThat(Integer.signum(ordering.compareStartTimes(pa, pb))).as("%s vs %s", a, b)
            .isEqualTo(Integer.signum(ordering.startTime(pa).compareTo(ordering.startTime(pb))));
      }
    }
  }

  private static io.fabric8.kubernetes.api.model.Pod withStart(String text) {
    return new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("p").endMetadata()
        .withNewStatus().withStartTime(text).endStatus().build();
  }
}
