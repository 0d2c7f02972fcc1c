package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FeatureGatesTest {
  @Test
  void asyncPreemptionIsOffByDefaultAsInV132() {
    assertThat(FeatureGates.defaults().enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isFalse();
    assertThat(FeatureGates.parse("").enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isFalse();
    assertThat(FeatureGates.parse(null).enabled("Unknown")).isFalse();
  }

  @Test
  void aSpecificationTurnsGatesOnAndOff() {
    assertThat(FeatureGates.parse("SchedulerAsyncPreemption=true")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isTrue();
    assertThat(FeatureGates.parse(" SchedulerAsyncPreemption=TRUE , ")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isTrue();
    assertThat(FeatureGates.parse("SchedulerAsyncPreemption=true,SchedulerAsyncPreemption=false")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isFalse();
  }

  @Test
  void unknownGatesAndBadValuesAreRefusedByName() {
    assertThatThrownBy(() -> FeatureGates.parse("SchedulerAsyncPreemtion=true"))
        .hasMessageContaining("unrecognized feature gate: SchedulerAsyncPreemtion");
    assertThatThrownBy(() -> FeatureGates.parse("SchedulerAsyncPreemption=yes"))
        .hasMessageContaining("invalid value of SchedulerAsyncPreemption=yes");
    assertThatThrownBy(() -> FeatureGates.parse("SchedulerAsyncPreemption"))
        .hasMessageContaining("missing bool value for SchedulerAsyncPreemption");
  }
}
