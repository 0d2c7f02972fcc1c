package io.berth.controller.replicaset;

import static io.berth.controller.PodFixture.pod;
import static io.berth.controller.replicaset.ReplicaSetFixture.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.WallClock;
import io.berth.workqueue.FakeClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplicaSetStatusesTest {

  private static final Instant T0 = Instant.parse("2025-06-01T12:00:00Z");

  private final FakeClock clock = new FakeClock();
  private final WallClock wall = WallClock.anchored(clock, T0);

  private static ReplicaSetCondition failure(String reason) {
    return new ReplicaSetConditionBuilder().withType("ReplicaFailure").withStatus("True").withReason(reason)
        .withMessage("m").withLastTransitionTime("2025-01-01T00:00:00Z").build();
  }

  @Test
  void availabilityWaitsForMinReadySecondsOnTheFakeClock() {
    ReplicaSet rs = replicaSet("web", 3).editSpec().withMinReadySeconds(10).endSpec().build();
    List<Pod> pods = List.of(
        pod("ready-now").runningReady("n1", T0).build(),
        pod("ready-before").runningReady("n1", T0.minusSeconds(30)).build(),
        pod("unready").onNode("n1").phase("Running").notReady().build());
    ReplicaSetStatus atStart = ReplicaSetStatuses.calculate(rs, pods, Optional.empty(), wall.now());
    assertThat(atStart.getReplicas()).isEqualTo(3);
    assertThat(atStart.getReadyReplicas()).isEqualTo(2);
    assertThat(atStart.getAvailableReplicas()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(10));
    assertThat(ReplicaSetStatuses.calculate(rs, pods, Optional.empty(), wall.now()).getAvailableReplicas())
        .isEqualTo(1);
    clock.advance(Duration.ofMillis(1));
    assertThat(ReplicaSetStatuses.calculate(rs, pods, Optional.empty(), wall.now()).getAvailableReplicas())
        .isEqualTo(2);
  }

  @Test
  void fullyLabeledCountsPodsCarryingEveryTemplateLabel() {
    ReplicaSet rs = replicaSet("web", 2).editSpec().editTemplate().editMetadata()
        .withLabels(Map.of("app", "web", "tier", "front")).endMetadata().endTemplate().endSpec().build();
    List<Pod> pods = List.of(pod("full").labels(Map.of("app", "web", "tier", "front", "x", "y")).build(),
        pod("partial").labels(Map.of("app", "web")).build());
    ReplicaSetStatus status = ReplicaSetStatuses.calculate(rs, pods, Optional.empty(), T0);
    assertThat(status.getFullyLabeledReplicas()).isEqualTo(1);
    assertThat(status.getReadyReplicas()).as("zero is omitted").isNull();
  }

  @Test
  void aManageErrorSetsReplicaFailureWithTheDirectionOfTheDiff() {
    ReplicaSet short1 = replicaSet("web", 2).build();
    ReplicaSetStatus s = ReplicaSetStatuses.calculate(short1, List.of(), Optional.of("quota"), T0);
    assertThat(s.getConditions()).singleElement().satisfies(c -> {
      assertThat(c.getReason()).isEqualTo("FailedCreate");
      assertThat(c.getMessage()).isEqualTo("quota");
      assertThat(c.getLastTransitionTime()).isEqualTo("2025-06-01T12:00:00Z");
    });
    ReplicaSet over = replicaSet("web", 0).build();
    assertThat(ReplicaSetStatuses.calculate(over, List.of(pod("p").build()), Optional.of("forbidden"), T0)
        .getConditions()).singleElement().extracting(ReplicaSetCondition::getReason).isEqualTo("FailedDelete");
  }

  @Test
  void anExistingFailureConditionIsKeptOnErrorAndRemovedOnSuccess() {
    ReplicaSet failing = new ReplicaSetBuilder(replicaSet("web", 1).build()).withNewStatus()
        .withConditions(failure("FailedCreate")).endStatus().build();
    assertThat(ReplicaSetStatuses.calculate(failing, List.of(), Optional.of("new message"), T0).getConditions())
        .containsExactly(failure("FailedCreate"));
    assertThat(ReplicaSetStatuses.calculate(failing, List.of(), Optional.empty(), T0).getConditions()).isEmpty();
    assertThat(failing.getStatus().getConditions()).as("input untouched").hasSize(1);
  }

  @Test
  void nothingChangedMeansSameCountsConditionsAndObservedGeneration() {
    ReplicaSet rs = new ReplicaSetBuilder(replicaSet("web", 1).build()).withNewStatus().withReplicas(1)
        .withReadyReplicas(1).withObservedGeneration(1L).endStatus().build();
    List<Pod> one = List.of(pod("p").labels(Map.of("app", "web")).runningReady("n", T0).build());
    ReplicaSetStatus same = ReplicaSetStatuses.calculate(rs, one, Optional.empty(), T0);
    assertThat(ReplicaSetStatuses.unchanged(rs, same)).isFalse(); // fullyLabeled and available were 0
    ReplicaSet settled = new ReplicaSetBuilder(rs).withStatus(same).build();
    settled.getStatus().setObservedGeneration(1L);
    assertThat(ReplicaSetStatuses.unchanged(settled, ReplicaSetStatuses.calculate(settled, one, Optional.empty(),
        T0))).isTrue();
    ReplicaSet newGeneration = new ReplicaSetBuilder(settled).editMetadata().withGeneration(2L).endMetadata().build();
    assertThat(ReplicaSetStatuses.unchanged(newGeneration, ReplicaSetStatuses.calculate(newGeneration, one,
        Optional.empty(), T0))).isFalse();
  }
}
