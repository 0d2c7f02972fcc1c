package io.berth.plugins.helper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.TaintBuilder;
import org.junit.jupiter.api.Test;

class TaintFiltersTest {
  @Test
  void doNotScheduleKeepsNoScheduleAndNoExecuteOnly() {
    assertThat(TaintFilters.DO_NOT_SCHEDULE.test(taint("NoSchedule"))).isTrue();
    assertThat(TaintFilters.DO_NOT_SCHEDULE.test(taint("NoExecute"))).isTrue();
    assertThat(TaintFilters.DO_NOT_SCHEDULE.test(taint("PreferNoSchedule"))).isFalse();
    assertThat(TaintFilters.DO_NOT_SCHEDULE.test(taint(null))).isFalse();
  }

  private static io.fabric8.kubernetes.api.model.Taint taint(String effect) {
    return new TaintBuilder().withKey("k").withEffect(effect).build();
  }
}
