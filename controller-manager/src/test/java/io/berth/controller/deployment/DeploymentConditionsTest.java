package io.berth.controller.deployment;

import static io.berth.controller.deployment.DeploymentConditions.STATUS_FALSE;
import static io.berth.controller.deployment.DeploymentConditions.STATUS_TRUE;
import static io.berth.controller.deployment.DeploymentConditions.TYPE_AVAILABLE;
import static io.berth.controller.deployment.DeploymentConditions.TYPE_PROGRESSING;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeploymentConditionsTest {

  private static final Instant T1 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Instant T2 = Instant.parse("2024-01-01T00:05:00.750Z");

  private static DeploymentStatus with(DeploymentCondition... conditions) {
    return new DeploymentStatusBuilder().withConditions(conditions).build();
  }

  @Test
  void newConditionStampsBothTimesAtSecondPrecision() {
    DeploymentCondition c = DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "R", "m", T2);
    assertThat(c.getLastUpdateTime()).isEqualTo("2024-01-01T00:05:00Z");
    assertThat(c.getLastTransitionTime()).isEqualTo("2024-01-01T00:05:00Z");
    assertThat(c.getType()).isEqualTo(TYPE_PROGRESSING);
    assertThat(c.getReason()).isEqualTo("R");
    assertThat(c.getMessage()).isEqualTo("m");
  }

  @Test
  void getFindsByType() {
    DeploymentStatus s = with(DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_TRUE, "A", "", T1),
        DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "P", "", T1));
    assertThat(DeploymentConditions.getCondition(s, TYPE_PROGRESSING)).get()
        .extracting(DeploymentCondition::getReason).isEqualTo("P");
    assertThat(DeploymentConditions.getCondition(s, "ReplicaFailure")).isEmpty();
    assertThat(DeploymentConditions.getCondition(null, TYPE_AVAILABLE)).isEmpty();
    assertThat(DeploymentConditions.getCondition(new DeploymentStatus(), TYPE_AVAILABLE)).isEmpty();
  }

  @Test
  void sameStatusAndReasonIsNotUpdated() {
    DeploymentCondition old = DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_TRUE, "A", "old", T1);
    DeploymentStatus s = DeploymentConditions.setCondition(with(old),
        DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_TRUE, "A", "new message", T2));
    assertThat(s.getConditions()).containsExactly(old);
  }

  @Test
  void sameStatusNewReasonKeepsTransitionTime() {
    DeploymentCondition old = DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "A", "", T1);
    DeploymentStatus s = DeploymentConditions.setCondition(with(old),
        DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "B", "", T2));
    DeploymentCondition now = DeploymentConditions.getCondition(s, TYPE_PROGRESSING).orElseThrow();
    assertThat(now.getReason()).isEqualTo("B");
    assertThat(now.getLastTransitionTime()).isEqualTo("2024-01-01T00:00:00Z");
    assertThat(now.getLastUpdateTime()).isEqualTo("2024-01-01T00:05:00Z");
  }

  @Test
  void statusChangeMovesTransitionTimeAndAppendsLast() {
    DeploymentCondition avail = DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_TRUE, "A", "", T1);
    DeploymentCondition prog = DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "P", "", T1);
    DeploymentStatus before = with(avail, prog);
    DeploymentStatus s = DeploymentConditions.setCondition(before,
        DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_FALSE, "U", "", T2));
    assertThat(s.getConditions()).extracting(DeploymentCondition::getType)
        .containsExactly(TYPE_PROGRESSING, TYPE_AVAILABLE);
    assertThat(DeploymentConditions.getCondition(s, TYPE_AVAILABLE).orElseThrow().getLastTransitionTime())
        .isEqualTo("2024-01-01T00:05:00Z");
    assertThat(before.getConditions()).as("input untouched").containsExactly(avail, prog);
  }

  @Test
  void removeDropsOnlyThatType() {
    DeploymentStatus s = with(DeploymentConditions.newCondition(TYPE_AVAILABLE, STATUS_TRUE, "A", "", T1),
        DeploymentConditions.newCondition(TYPE_PROGRESSING, STATUS_TRUE, "P", "", T1));
    assertThat(DeploymentConditions.removeCondition(s, TYPE_PROGRESSING).getConditions())
        .extracting(DeploymentCondition::getType).containsExactly(TYPE_AVAILABLE);
    assertThat(DeploymentConditions.removeCondition(null, TYPE_PROGRESSING).getConditions()).isEmpty();
  }

  @Test
  void replicaSetFailureBecomesDeploymentConditionWithItsTransitionTime() {
    DeploymentCondition c = DeploymentConditions.fromReplicaSetCondition(new ReplicaSetConditionBuilder()
        .withType("ReplicaFailure").withStatus(STATUS_TRUE).withReason("FailedCreate")
        .withMessage("quota").withLastTransitionTime("2024-01-01T00:00:00Z").build());
    assertThat(c.getType()).isEqualTo(DeploymentConditions.TYPE_REPLICA_FAILURE);
    assertThat(c.getLastUpdateTime()).isEqualTo("2024-01-01T00:00:00Z");
    assertThat(c.getLastTransitionTime()).isEqualTo("2024-01-01T00:00:00Z");
    assertThat(c.getMessage()).isEqualTo("quota");
  }

  @Test
  void timeRoundTrip() {
    assertThat(DeploymentConditions.parseTime(DeploymentConditions.formatTime(T2)))
        .contains(Instant.parse("2024-01-01T00:05:00Z"));
    assertThat(DeploymentConditions.parseTime("2024-01-01T01:00:00+01:00")).contains(T1);
    assertThat(DeploymentConditions.parseTime("yesterday")).isEqualTo(Optional.empty());
    assertThat(DeploymentConditions.parseTime(null)).isEmpty();
  }
}
