package io.berth.controller.deployment;

import static io.berth.controller.deployment.DeploymentConditions.REASON_DEPLOYMENT_PAUSED;
import static io.berth.controller.deployment.DeploymentConditions.REASON_DEPLOYMENT_RESUMED;
import static io.berth.controller.deployment.DeploymentConditions.REASON_NEW_REPLICA_SET_AVAILABLE;
import static io.berth.controller.deployment.DeploymentConditions.REASON_PROGRESS_DEADLINE_EXCEEDED;
import static io.berth.controller.deployment.DeploymentConditions.REASON_REPLICA_SET_UPDATED;
import static io.berth.controller.deployment.DeploymentConditions.STATUS_FALSE;
import static io.berth.controller.deployment.DeploymentConditions.STATUS_TRUE;
import static io.berth.controller.deployment.DeploymentConditions.STATUS_UNKNOWN;
import static io.berth.controller.deployment.DeploymentConditions.TYPE_PROGRESSING;
import static io.berth.controller.deployment.DeploymentConditions.TYPE_REPLICA_FAILURE;
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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeploymentProgressTest {

  private static final Instant NOW = Instant.parse("2024-03-01T12:00:00Z");

  private static DeploymentCondition progressing(String status, String reason, Instant lastUpdate) {
    return DeploymentConditions.newCondition(TYPE_PROGRESSING, status, reason, "", lastUpdate);
  }

  private static DeploymentStatus status(int replicas, int updated, int ready, int available,
                       DeploymentCondition... conditions) {
    return new DeploymentStatusBuilder().withObservedGeneration(1L).withReplicas(replicas)
        .withUpdatedReplicas(updated).withReadyReplicas(ready).withAvailableReplicas(available)
        .withConditions(conditions).build();
  }

  private static Deployment withStatus(Deployment d, DeploymentStatus s) {
    return new DeploymentBuilder(d).withStatus(s).build();
  }

  private static Deployment deadline(Integer seconds) {
    return new DeploymentBuilder(rolling(3, 1, 0)).editSpec().withProgressDeadlineSeconds(seconds).endSpec()
        .build();
  }

  @Test
  void progressDeadlinePresence() {
    assertThat(DeploymentProgress.hasProgressDeadline(deadline(600))).isTrue();
    assertThat(DeploymentProgress.hasProgressDeadline(deadline(null))).isFalse();
    assertThat(DeploymentProgress.hasProgressDeadline(deadline(Integer.MAX_VALUE))).isFalse();
  }

  static Stream<Arguments> complete() {
    return Stream.of(
        Arguments.of("all updated, available, observed", status(3, 3, 3, 3), 1L, true),
        Arguments.of("an available replica short", status(3, 3, 3, 2), 1L, false),
        Arguments.of("old replicas still around", status(4, 3, 4, 4), 1L, false),
        Arguments.of("not all updated", status(3, 2, 3, 3), 1L, false),
        Arguments.of("status for an older generation", status(3, 3, 3, 3), 2L, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void complete(String name, DeploymentStatus s, long generation, boolean expected) {
    Deployment d = new DeploymentBuilder(rolling(3, 1, 0)).editMetadata().withGeneration(generation)
        .endMetadata().build();
    assertThat(DeploymentProgress.deploymentComplete(d, s)).isEqualTo(expected);
  }

  static Stream<Arguments> progressing() {
    DeploymentStatus before = status(4, 1, 3, 3);
    return Stream.of(
        Arguments.of("more updated replicas", before, status(4, 2, 3, 3), true),
        Arguments.of("fewer old replicas", before, status(3, 1, 3, 3), true),
        Arguments.of("more ready replicas", before, status(4, 1, 4, 3), true),
        Arguments.of("more available replicas", before, status(4, 1, 3, 4), true),
        Arguments.of("nothing moved", before, status(4, 1, 3, 3), false),
        Arguments.of("fewer available is no progress", before, status(4, 1, 3, 2), false),
        Arguments.of("first status ever with updated pods", null, status(1, 1, 0, 0), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void progressing(String name, DeploymentStatus old, DeploymentStatus now, boolean expected) {
    assertThat(DeploymentProgress.deploymentProgressing(withStatus(rolling(4, 1, 0), old), now))
        .isEqualTo(expected);
  }

  static Stream<Arguments> timedOut() {
    return Stream.of(
        Arguments.of("no deadline", null, status(1, 0, 0, 0, progressing(STATUS_TRUE,
            REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(3600))), false),
        Arguments.of("no Progressing condition", 600, status(1, 0, 0, 0), false),
        Arguments.of("a completed rollout never times out", 600, status(1, 0, 0, 0, progressing(STATUS_TRUE,
            REASON_NEW_REPLICA_SET_AVAILABLE, NOW.minusSeconds(3600))), false),
        Arguments.of("already reported", 600, status(1, 0, 0, 0, progressing(STATUS_FALSE,
            REASON_PROGRESS_DEADLINE_EXCEEDED, NOW)), true),
        Arguments.of("last progress longer ago than the deadline", 600, status(1, 0, 0, 0,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(601))), true),
        Arguments.of("exactly at the deadline is not yet over", 600, status(1, 0, 0, 0,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(600))), false),
        Arguments.of("within the deadline", 600, status(1, 0, 0, 0,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(60))), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void timedOut(String name, Integer deadline, DeploymentStatus newStatus, boolean expected) {
    assertThat(DeploymentProgress.deploymentTimedOut(deadline(deadline), newStatus, NOW)).isEqualTo(expected);
  }

  static Stream<Arguments> requeue() {
    DeploymentStatus incomplete = status(3, 1, 1, 1);
    DeploymentStatus complete = status(3, 3, 3, 3);
    return Stream.of(
        Arguments.of("no deadline", null, progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED,
            NOW.minusSeconds(180)), incomplete, ProgressRecheck.NONE),
        Arguments.of("no current Progressing condition", 600, null, incomplete, ProgressRecheck.NONE),
        Arguments.of("rollout complete", 600, progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED,
            NOW.minusSeconds(180)), complete, ProgressRecheck.NONE),
        Arguments.of("already timed out", 600, progressing(STATUS_FALSE, REASON_PROGRESS_DEADLINE_EXCEEDED,
            NOW.minusSeconds(180)), incomplete, ProgressRecheck.NONE),
        Arguments.of("3 of 10 minutes gone: back in 7 minutes plus a second", 600,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(180)), incomplete,
            ProgressRecheck.after(Duration.ofMinutes(7).plusSeconds(1))),
        Arguments.of("one second left: after two", 600, progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED,
            NOW.minusSeconds(599)), incomplete, ProgressRecheck.after(Duration.ofSeconds(2))),
        Arguments.of("deadline reached: now, rate-limited", 600, progressing(STATUS_TRUE,
            REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(600)), incomplete,
            ProgressRecheck.NOW_RATE_LIMITED),
        Arguments.of("deadline long past: now, rate-limited", 600, progressing(STATUS_TRUE,
            REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(5000)), incomplete,
            ProgressRecheck.NOW_RATE_LIMITED));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void requeue(String name, Integer deadline, DeploymentCondition current, DeploymentStatus newStatus,
         ProgressRecheck expected) {
    DeploymentStatus currentStatus = current == null ? status(3, 1, 1, 1) : status(3, 1, 1, 1, current);
    Deployment d = withStatus(deadline(deadline), currentStatus);
    assertThat(DeploymentProgress.requeueStuckDeployment(d, newStatus, NOW)).isEqualTo(expected);
  }

  // --- syncRolloutStatus ---------------------------------------------------------------------------------

  private static ReplicaSet newRS(int replicas, int available) {
    return rs("foo-new", replicas, available, 100);
  }

  @Test
  void completedRolloutReportsNewReplicaSetAvailable() {
    ReplicaSet nu = newRS(3, 3);
    Deployment d = withStatus(rolling(3, 1, 0), status(3, 3, 3, 2,
        progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(30))));
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(nu), Optional.of(nu), d, NOW);
    assertThat(r.needsUpdate()).isTrue();
    assertThat(r.recheck()).isEqualTo(ProgressRecheck.NONE);
    DeploymentCondition c = DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING).orElseThrow();
    assertThat(c.getReason()).isEqualTo(REASON_NEW_REPLICA_SET_AVAILABLE);
    assertThat(c.getStatus()).isEqualTo(STATUS_TRUE);
    assertThat(c.getMessage()).isEqualTo("ReplicaSet \"foo-new\" has successfully progressed.");
  }

  @Test
  void progressRestampsTheConditionButKeepsTransitionTime() {
    ReplicaSet old = rs("foo-old", 2, 2, 0);
    ReplicaSet nu = newRS(2, 1);
    Instant earlier = NOW.minusSeconds(300);
    Deployment d = withStatus(rolling(3, 1, 0), status(4, 2, 3, 3,
        progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, earlier)));
    // One old replica gone: progress.
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(old, nu), Optional.of(nu),
        d.edit().editStatus().withReplicas(5).endStatus().build(), NOW);
    DeploymentCondition c = DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING).orElseThrow();
    assertThat(c.getReason()).isEqualTo(REASON_REPLICA_SET_UPDATED);
    assertThat(c.getMessage()).isEqualTo("ReplicaSet \"foo-new\" is progressing.");
    assertThat(c.getLastUpdateTime()).isEqualTo(DeploymentConditions.formatTime(NOW));
    assertThat(c.getLastTransitionTime()).isEqualTo(DeploymentConditions.formatTime(earlier));
    assertThat(r.needsUpdate()).isTrue();
  }

  @Test
  void progressAfterResumeStartsANewTransition() {
    ReplicaSet nu = newRS(2, 1);
    Deployment d = withStatus(rolling(3, 1, 0), status(1, 1, 0, 0,
        progressing(STATUS_UNKNOWN, REASON_DEPLOYMENT_RESUMED, NOW.minusSeconds(300))));
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(nu), Optional.of(nu), d, NOW);
    DeploymentCondition c = DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING).orElseThrow();
    assertThat(c.getStatus()).isEqualTo(STATUS_TRUE);
    assertThat(c.getLastTransitionTime()).isEqualTo(DeploymentConditions.formatTime(NOW));
  }

  @Test
  void stuckRolloutTimesOutAfterTheDeadline() {
    ReplicaSet old = rs("foo-old", 3, 3, 0);
    ReplicaSet nu = newRS(1, 0);
    DeploymentStatus current = DeploymentStatusCalculator.calculateStatus(List.of(old, nu), Optional.of(nu),
        rolling(3, 1, 0), NOW.minusSeconds(700));
    current = DeploymentConditions.setCondition(current,
        progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW.minusSeconds(601)));
    Deployment d = withStatus(rolling(3, 1, 0), current);

    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(old, nu), Optional.of(nu), d, NOW);
    DeploymentCondition c = DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING).orElseThrow();
    assertThat(c.getStatus()).isEqualTo(STATUS_FALSE);
    assertThat(c.getReason()).isEqualTo(REASON_PROGRESS_DEADLINE_EXCEEDED);
    assertThat(c.getMessage()).isEqualTo("ReplicaSet \"foo-new\" has timed out progressing.");
    assertThat(r.needsUpdate()).isTrue();

    // One second earlier nothing changes, and the deadline check is scheduled.
    RolloutStatus before = DeploymentProgress.syncRolloutStatus(List.of(old, nu), Optional.of(nu), d,
        NOW.minusSeconds(2));
    assertThat(before.needsUpdate()).isFalse();
    assertThat(before.recheck()).isEqualTo(ProgressRecheck.after(Duration.ofSeconds(2)));
  }

  @Test
  void withoutDeadlineProgressingIsRemoved() {
    ReplicaSet nu = newRS(3, 3);
    Deployment d = withStatus(deadline(null), status(3, 3, 3, 3,
        progressing(STATUS_TRUE, REASON_NEW_REPLICA_SET_AVAILABLE, NOW)));
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(nu), Optional.of(nu), d, NOW);
    assertThat(DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING)).isEmpty();
    assertThat(r.needsUpdate()).isTrue();
  }

  @Test
  void completedRolloutConditionIsLeftAloneOnResync() {
    ReplicaSet nu = newRS(3, 3);
    DeploymentStatus settled = DeploymentStatusCalculator.calculateStatus(List.of(nu), Optional.of(nu),
        rolling(3, 1, 0), NOW.minusSeconds(3600));
    settled = DeploymentConditions.setCondition(settled,
        progressing(STATUS_TRUE, REASON_NEW_REPLICA_SET_AVAILABLE, NOW.minusSeconds(3600)));
    Deployment d = withStatus(rolling(3, 1, 0), settled);
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(nu), Optional.of(nu), d, NOW);
    assertThat(r.needsUpdate()).isFalse();
    assertThat(r.recheck()).isEqualTo(ProgressRecheck.NONE);
  }

  @Test
  void replicaFailureOfTheNewReplicaSetWins() {
    ReplicaSet old = withFailure(rs("foo-old", 1, 1, 0), "old failure");
    ReplicaSet nu = withFailure(newRS(1, 0), "new failure");
    Deployment d = withStatus(rolling(3, 1, 0), status(1, 0, 0, 0));
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(old, nu), Optional.of(nu), d, NOW);
    assertThat(DeploymentConditions.getCondition(r.status(), TYPE_REPLICA_FAILURE)).get()
        .extracting(DeploymentCondition::getMessage).isEqualTo("new failure");

    RolloutStatus oldOnly = DeploymentProgress.syncRolloutStatus(List.of(old, newRS(1, 0)),
        Optional.of(newRS(1, 0)), d, NOW);
    assertThat(DeploymentConditions.getCondition(oldOnly.status(), TYPE_REPLICA_FAILURE)).get()
        .extracting(DeploymentCondition::getMessage).isEqualTo("old failure");

    Deployment failing = withStatus(d, r.status());
    RolloutStatus cleared = DeploymentProgress.syncRolloutStatus(List.of(newRS(1, 0)), Optional.of(newRS(1, 0)),
        failing, NOW);
    assertThat(DeploymentConditions.getCondition(cleared.status(), TYPE_REPLICA_FAILURE)).isEmpty();
  }

  private static ReplicaSet withFailure(ReplicaSet rs, String message) {
    return new ReplicaSetBuilder(rs).editStatus().addNewCondition().withType(TYPE_REPLICA_FAILURE)
        .withStatus(STATUS_TRUE).withReason("FailedCreate").withMessage(message)
        .withLastTransitionTime("2024-03-01T11:00:00Z").endCondition().endStatus().build();
  }

  @Test
  void messageNamesTheDeploymentWhenThereIsNoNewReplicaSet() {
    Deployment d = withStatus(new DeploymentBuilder(rolling(0, 1, 0)).build(), status(0, 0, 0, 0));
    RolloutStatus r = DeploymentProgress.syncRolloutStatus(List.of(), Optional.empty(), d, NOW);
    assertThat(DeploymentConditions.getCondition(r.status(), TYPE_PROGRESSING)).get()
        .extracting(DeploymentCondition::getMessage)
        .isEqualTo("Deployment \"foo\" has successfully progressed.");
  }

  // --- checkPausedConditions -----------------------------------------------------------------------------

  static Stream<Arguments> pausedConditions() {
    return Stream.of(
        Arguments.of("pausing records DeploymentPaused", true, 600,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW), REASON_DEPLOYMENT_PAUSED),
        Arguments.of("already recorded as paused: nothing", true, 600,
            progressing(STATUS_UNKNOWN, REASON_DEPLOYMENT_PAUSED, NOW), null),
        Arguments.of("resuming records DeploymentResumed", false, 600,
            progressing(STATUS_UNKNOWN, REASON_DEPLOYMENT_PAUSED, NOW), REASON_DEPLOYMENT_RESUMED),
        Arguments.of("running and not paused before: nothing", false, 600,
            progressing(STATUS_TRUE, REASON_REPLICA_SET_UPDATED, NOW), null),
        Arguments.of("a timeout is never overwritten", true, 600,
            progressing(STATUS_FALSE, REASON_PROGRESS_DEADLINE_EXCEEDED, NOW), null),
        Arguments.of("without a deadline nothing is recorded", true, null, null, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void pausedConditions(String name, boolean paused, Integer deadline, DeploymentCondition current,
              String expectedReason) {
    Deployment d = new DeploymentBuilder(deadline(deadline)).editSpec().withPaused(paused).endSpec()
        .withStatus(current == null ? status(0, 0, 0, 0) : status(0, 0, 0, 0, current)).build();
    Optional<DeploymentStatus> result = DeploymentProgress.checkPausedConditions(d, NOW);
    if (expectedReason == null) {
      assertThat(result).isEmpty();
    } else {
      DeploymentCondition c = DeploymentConditions.getCondition(result.orElseThrow(), TYPE_PROGRESSING)
          .orElseThrow();
      assertThat(c.getReason()).isEqualTo(expectedReason);
      assertThat(c.getStatus()).isEqualTo(STATUS_UNKNOWN);
    }
  }
}
