package io.berth.plugins.capacityscheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Args validation worded as the other plugins' (PluginArgFields). */
class CapacitySchedulingArgsTest {
  @Test
  void defaultsWhenEmpty() {
    assertThat(CapacitySchedulingArgs.parse(Map.of())).isEqualTo(CapacitySchedulingArgs.DEFAULTS);
    assertThat(CapacitySchedulingArgs.parse(Map.of("statusUpdatePeriodSeconds", 5, "apiVersion", "x")))
        .isEqualTo(new CapacitySchedulingArgs(10, 100, 5));
  }

  @Test
  void unknownFieldsWrongTypesAndRangesNameTheField() {
    assertThatThrownBy(() -> CapacitySchedulingArgs.parse(Map.of("statusPeriod", 1)))
        .hasMessage("unknown field \"statusPeriod\"");
    assertThatThrownBy(() -> CapacitySchedulingArgs.parse(Map.of("statusUpdatePeriodSeconds", "1")))
        .hasMessage("statusUpdatePeriodSeconds: Invalid value: \"1\": must be a 32-bit integer");
    assertThatThrownBy(() -> CapacitySchedulingArgs.parse(Map.of("statusUpdatePeriodSeconds", 0)))
        .hasMessage("statusUpdatePeriodSeconds: Invalid value: 0: must be greater than or equal to 1");
    assertThatThrownBy(() -> CapacitySchedulingArgs.parse(Map.of("minCandidateNodesPercentage", 101,
        "minCandidateNodesAbsolute", -1)))
        .hasMessage("[minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100], "
            + "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]");
  }
}
