package io.berth.plugins.coscheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** CoschedulingArgs defaults and validation, each error naming its field. */
class CoschedulingArgsTest {

  @Test
  void defaultsAreSixtySecondsWaitAndNoGroupBackoff() {
    assertThat(CoschedulingArgs.parse(Map.of())).isEqualTo(new CoschedulingArgs(60, 0));
    assertThat(CoschedulingArgs.parse(null)).isEqualTo(CoschedulingArgs.DEFAULTS);
  }

  @Test
  void parsesBothFields() {
    assertThat(CoschedulingArgs.parse(Map.of("permitWaitingTimeSeconds", 10, "podGroupBackoffSeconds", 3L,
        "kind", "CoschedulingArgs"))).isEqualTo(new CoschedulingArgs(10, 3));
  }

  @Test
  void negativeValuesAreRejectedNamingTheField() {
    assertThatThrownBy(() -> CoschedulingArgs.parse(Map.of("permitWaitingTimeSeconds", -1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permitWaitingTimeSeconds: Invalid value: -1: must be greater than or equal to 0");
    assertThatThrownBy(() -> CoschedulingArgs.parse(Map.of("podGroupBackoffSeconds", -5)))
        .hasMessageContaining("podGroupBackoffSeconds: Invalid value: -5");
  }

  @Test
  void unknownFieldsAndNonIntegersAreRejected() {
    assertThatThrownBy(() -> CoschedulingArgs.parse(Map.of("permitWaitingTime", 1)))
        .hasMessage("unknown field \"permitWaitingTime\"");
    assertThatThrownBy(() -> CoschedulingArgs.parse(Map.of("podGroupBackoffSeconds", "ten")))
        .hasMessage("podGroupBackoffSeconds: Invalid value: \"ten\": must be a 32-bit integer");
  }

  @Test
  void maxGroupCycleMembersDefaultsTo256AndMustBePositive() {
    assertThat(CoschedulingArgs.parse(Map.of()).maxGroupCycleMembers()).isEqualTo(256);
    assertThat(CoschedulingArgs.parse(Map.of("maxGroupCycleMembers", 8)).maxGroupCycleMembers()).isEqualTo(8);
    assertThatThrownBy(() -> CoschedulingArgs.parse(Map.of("maxGroupCycleMembers", 0)))
        .hasMessage("maxGroupCycleMembers: Invalid value: 0: must be greater than or equal to 1");
  }
}
