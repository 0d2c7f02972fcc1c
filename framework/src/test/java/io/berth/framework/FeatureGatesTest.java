package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FeatureGatesTest {
  @ParameterizedTest
  @ValueSource(strings = {FeatureGates.SCHEDULER_ASYNC_PREEMPTION,
      FeatureGates.SCHEDULER_POP_FROM_BACKOFF_Q, FeatureGates.NOMINATED_NODE_NAME_FOR_EXPECTATION,
      FeatureGates.CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING, FeatureGates.OPPORTUNISTIC_BATCHING,
      FeatureGates.DRA_CONSUMABLE_CAPACITY, FeatureGates.SCHEDULER_QUEUEING_HINTS})
  void v136BetaAndGaGatesAreOnByDefault(String gate) {
    assertThat(FeatureGates.defaults().enabled(gate)).isTrue();
    assertThat(FeatureGates.parse("").enabled(gate)).isTrue();
    assertThat(FeatureGates.parse(null).enabled(gate)).isTrue();
  }

  @Test
  void anUnknownNameIsNeverEnabled() {
    assertThat(FeatureGates.parse(null).enabled("Unknown")).isFalse();
  }

  @Test
  void aSpecificationTurnsGatesOnAndOff() {
    assertThat(FeatureGates.parse("SchedulerAsyncPreemption=false")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isFalse();
    assertThat(FeatureGates.parse(" SchedulerAsyncPreemption=FALSE , ")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isFalse();
    assertThat(FeatureGates.parse("SchedulerAsyncPreemption=false,SchedulerAsyncPreemption=true")
        .enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isTrue();
    FeatureGates off = FeatureGates.parse("SchedulerPopFromBackoffQ=false,"
        + "NominatedNodeNameForExpectation=false,ClearingNominatedNodeNameAfterBinding=false,"
        + "OpportunisticBatching=false,DRAConsumableCapacity=false");
    assertThat(off.enabled(FeatureGates.SCHEDULER_POP_FROM_BACKOFF_Q)).isFalse();
    assertThat(off.enabled(FeatureGates.NOMINATED_NODE_NAME_FOR_EXPECTATION)).isFalse();
    assertThat(off.enabled(FeatureGates.CLEARING_NOMINATED_NODE_NAME_AFTER_BINDING)).isFalse();
    assertThat(off.enabled(FeatureGates.OPPORTUNISTIC_BATCHING)).isFalse();
    assertThat(off.enabled(FeatureGates.DRA_CONSUMABLE_CAPACITY)).isFalse();
    assertThat(off.enabled(FeatureGates.SCHEDULER_ASYNC_PREEMPTION)).isTrue();
  }

  @Test
  void schedulerAsyncApiCallsIsOffByDefaultAsInV136AndCanBeTurnedOn() {
    assertThat(FeatureGates.known()).containsEntry(FeatureGates.SCHEDULER_ASYNC_API_CALLS, false);
    assertThat(FeatureGates.defaults().enabled(FeatureGates.SCHEDULER_ASYNC_API_CALLS)).isFalse();
    assertThat(FeatureGates.parse("SchedulerAsyncAPICalls=true")
        .enabled(FeatureGates.SCHEDULER_ASYNC_API_CALLS)).isTrue();
  }

  @Test
  void schedulerQueueingHintsIsLockedToTrue() {
    assertThat(FeatureGates.parse("SchedulerQueueingHints=true")
        .enabled(FeatureGates.SCHEDULER_QUEUEING_HINTS)).isTrue();
    assertThatThrownBy(() -> FeatureGates.parse("SchedulerQueueingHints=false"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot set feature gate SchedulerQueueingHints to false,"
            + " feature is locked to true");
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
