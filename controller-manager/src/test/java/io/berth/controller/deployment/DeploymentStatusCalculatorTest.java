package io.berth.controller.deployment;

import static io.berth.controller.deployment.DeploymentConditions.TYPE_AVAILABLE;
import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeploymentStatusCalculatorTest {

  private static final Instant NOW = Instant.parse("2024-03-01T12:00:00Z");

  /** A ReplicaSet with explicit spec, status replicas, ready and available counts. */
  private static ReplicaSet rsWith(String name, int spec, int status, int ready, int available) {
    return new ReplicaSetBuilder(rs(name, spec, 0)).editStatus().withReplicas(status).withReadyReplicas(ready)
        .withAvailableReplicas(available).endStatus().build();
  }

  /**
   * Rows: deployment (replicas, maxUnavailable), ReplicaSets (old..., new last); expected replicas, updated,
   * ready, available, unavailable, Available condition reason.
   */
  static Stream<Arguments> calculate() {
    return Stream.of(
        Arguments.of("steady state", 3, 1, List.of(rsWith("new", 3, 3, 3, 3)), 3, 3, 3, 3, 0,
            DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE),
        Arguments.of("mid-rollout sums across ReplicaSets", 10, 2,
            List.of(rsWith("old", 8, 8, 8, 7), rsWith("new", 4, 3, 2, 1)), 11, 3, 10, 8, 4,
            DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE),
        Arguments.of("below the availability floor", 10, 2,
            List.of(rsWith("old", 5, 5, 5, 5), rsWith("new", 5, 5, 2, 2)), 10, 5, 7, 7, 3,
            DeploymentConditions.REASON_MINIMUM_REPLICAS_UNAVAILABLE),
        Arguments.of("scaling down: more available than desired, unavailable floors at 0", 3, 0,
            List.of(rsWith("new", 3, 5, 5, 5)), 5, 5, 5, 5, 0,
            DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE),
        Arguments.of("updatedReplicas is the new RS's actual pods, not its spec", 4, 1,
            List.of(rsWith("old", 2, 2, 2, 2), rsWith("new", 2, 1, 0, 0)), 3, 1, 2, 2, 2,
            DeploymentConditions.REASON_MINIMUM_REPLICAS_UNAVAILABLE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void calculate(String name, int replicas, int maxUnavailable, List<ReplicaSet> rss, int expReplicas,
           int expUpdated, int expReady, int expAvailable, int expUnavailable, String expReason) {
    Deployment d = rolling(replicas, 0, maxUnavailable);
    ReplicaSet nu = rss.get(rss.size() - 1);
    DeploymentStatus s = DeploymentStatusCalculator.calculateStatus(rss, Optional.of(nu), d, NOW);
    assertThat(s.getReplicas()).as("replicas").isEqualTo(expReplicas);
    assertThat(s.getUpdatedReplicas()).as("updated").isEqualTo(expUpdated);
    assertThat(s.getReadyReplicas()).as("ready").isEqualTo(expReady);
    assertThat(s.getAvailableReplicas()).as("available").isEqualTo(expAvailable);
    assertThat(s.getUnavailableReplicas()).as("unavailable").isEqualTo(expUnavailable);
    DeploymentCondition available = DeploymentConditions.getCondition(s, TYPE_AVAILABLE).orElseThrow();
    assertThat(available.getReason()).isEqualTo(expReason);
    assertThat(available.getStatus()).isEqualTo(
        expReason.equals(DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE) ? "True" : "False");
    assertThat(available.getMessage()).isEqualTo(
        expReason.equals(DeploymentConditions.REASON_MINIMUM_REPLICAS_AVAILABLE)
            ? "Deployment has minimum availability." : "Deployment does not have minimum availability.");
  }

  @Test
  void carriesGenerationCollisionCountAndOtherConditions() {
    DeploymentCondition progressing = DeploymentConditions.newCondition(DeploymentConditions.TYPE_PROGRESSING,
        "True", DeploymentConditions.REASON_REPLICA_SET_UPDATED, "x", NOW.minusSeconds(60));
    Deployment d = new DeploymentBuilder(rolling(2, 1, 0)).editMetadata().withGeneration(7L).endMetadata()
        .withStatus(new DeploymentStatusBuilder().withCollisionCount(2).withConditions(progressing).build())
        .build();
    DeploymentStatus s = DeploymentStatusCalculator.calculateStatus(List.of(), Optional.empty(), d, NOW);
    assertThat(s.getObservedGeneration()).isEqualTo(7L);
    assertThat(s.getCollisionCount()).isEqualTo(2);
    assertThat(s.getUpdatedReplicas()).isZero();
    assertThat(s.getConditions()).startsWith(progressing);
    assertThat(d.getStatus().getConditions()).as("input untouched").containsExactly(progressing);
  }

  @Test
  void availableConditionKeepsItsTimesWhileUnchanged() {
    Deployment d = rolling(1, 1, 0);
    List<ReplicaSet> rss = List.of(rsWith("new", 1, 1, 1, 1));
    DeploymentStatus first = DeploymentStatusCalculator.calculateStatus(rss, Optional.of(rss.get(0)), d,
        NOW.minusSeconds(600));
    Deployment observed = new DeploymentBuilder(d).withStatus(first).build();
    assertThat(DeploymentStatusCalculator.syncDeploymentStatus(rss, Optional.of(rss.get(0)), observed, NOW))
        .as("nothing to write").isEmpty();
    List<ReplicaSet> degraded = List.of(rsWith("new", 1, 1, 0, 0));
    DeploymentStatus next = DeploymentStatusCalculator.syncDeploymentStatus(degraded,
        Optional.of(degraded.get(0)), observed, NOW).orElseThrow();
    assertThat(DeploymentConditions.getCondition(next, TYPE_AVAILABLE).orElseThrow().getLastTransitionTime())
        .isEqualTo(DeploymentConditions.formatTime(NOW));
  }

  @Test
  void statusEqualityTreatsAbsentCountersAsZero() {
    DeploymentStatus absent = new DeploymentStatus();
    DeploymentStatus zeros = new DeploymentStatusBuilder().withReplicas(0).withUpdatedReplicas(0)
        .withReadyReplicas(0).withAvailableReplicas(0).withUnavailableReplicas(0).withObservedGeneration(0L)
        .withConditions(List.of()).build();
    assertThat(DeploymentStatusCalculator.statusEquals(absent, zeros)).isTrue();
    assertThat(DeploymentStatusCalculator.statusEquals(null, zeros)).isTrue();
    assertThat(DeploymentStatusCalculator.statusEquals(zeros,
        new DeploymentStatusBuilder(zeros).withReplicas(1).build())).isFalse();
    assertThat(DeploymentStatusCalculator.statusEquals(zeros,
        new DeploymentStatusBuilder(zeros).withCollisionCount(0).build()))
        .as("collisionCount is a pointer: absent differs from 0").isFalse();
  }
}
