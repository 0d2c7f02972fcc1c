package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IntOrPercentTest {

  private static IntOrString value(String raw) {
    return raw.matches("-?\\d+") ? new IntOrString(Integer.parseInt(raw)) : new IntOrString(raw);
  }

  @ParameterizedTest(name = "{0}: {1} of {2}, roundUp={3} -> {4}")
  @CsvSource({
      "absolute int ignores total,                  5,    100, true,  5",
      "absolute int ignores rounding,               5,    3,   false, 5",
      "10% of 3 rounds up to 1,                     10%,  3,   true,  1",
      "10% of 3 rounds down to 0,                   10%,  3,   false, 0",
      "25% of 10 rounds up to 3,                    25%,  10,  true,  3",
      "25% of 10 rounds down to 2,                  25%,  10,  false, 2",
      "exact percentage is not bumped by round up,  50%,  10,  true,  5",
      "100% of 7 is 7 either way (up),              100%, 7,   true,  7",
      "100% of 7 is 7 either way (down),            100%, 7,   false, 7",
      "0% is 0,                                     0%,   10,  true,  0",
      "percent of zero total is zero,               30%,  0,   true,  0",
      "1% of 1 rounds up to 1,                      1%,   1,   true,  1",
      "29% of 100 stays exactly 29 when rounding up, 29%, 100, true,  29",
      "over 100% scales beyond the total,           150%, 10,  true,  15",
  })
  void scalesAgainstTotal(String name, String raw, int total, boolean roundUp, int expected) {
    assertThat(IntOrPercent.scaledValue(value(raw), total, roundUp, "f")).isEqualTo(expected);
  }

  @Test
  void unparsablePercentNamesTheField() {
    assertThatThrownBy(() -> IntOrPercent.scaledValue(new IntOrString("abc%"), 10, true,
        "spec.strategy.rollingUpdate.maxSurge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spec.strategy.rollingUpdate.maxSurge: invalid value \"abc%\"");
  }

  @Test
  void stringWithoutPercentSignIsRejected() {
    assertThatThrownBy(() -> IntOrPercent.scaledValue(new IntOrString("5"), 10, true, "x.y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("x.y: invalid value \"5\": string is not a percentage");
  }

  @Test
  void nullValueIsRejectedWithField() {
    assertThatThrownBy(() -> IntOrPercent.scaledValue(null, 10, true, "spec.strategy.rollingUpdate.maxSurge"))
        .hasMessage("spec.strategy.rollingUpdate.maxSurge: nil value for IntOrString");
  }

  @Test
  void rawValueReadsNumberOfPercentWithoutScaling() {
    assertThat(IntOrPercent.rawValue(new IntOrString("40%"), "f")).isEqualTo(40);
    assertThat(IntOrPercent.rawValue(new IntOrString(3), "f")).isEqualTo(3);
    assertThat(IntOrPercent.isPercent(new IntOrString("40%"))).isTrue();
    assertThat(IntOrPercent.isPercent(new IntOrString(40))).isFalse();
  }

  @Test
  void valueOrDefaultOnlyReplacesAbsent() {
    IntOrString fallback = new IntOrString(0);
    IntOrString given = new IntOrString("5%");
    assertThat(IntOrPercent.valueOrDefault(null, fallback)).isSameAs(fallback);
    assertThat(IntOrPercent.valueOrDefault(given, fallback)).isSameAs(given);
  }
}
