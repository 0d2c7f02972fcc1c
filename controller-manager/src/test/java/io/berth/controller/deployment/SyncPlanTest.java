package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static io.berth.controller.deployment.Fixtures.sizedFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SyncPlanTest {

  /** The Deployment's own ReplicaSet, sized for {@code desired}. */
  private static ReplicaSet current(Deployment d, int size, int desired) {
    ReplicaSet r = Fixtures.withTemplate(rs("foo-cur", size, 10), new PodTemplateSpecBuilder(
        d.getSpec().getTemplate()).editMetadata().addToLabels(PodTemplateHash.LABEL, "h").endMetadata()
        .build());
    return sizedFor(r, desired, RollingUpdateMath.maxSurge(d));
  }

  private static Arguments row(String name, UnaryOperator<DeploymentBuilder> change, int rsDesired,
                 SyncPlan.Branch expected) {
    return Arguments.of(name, change, rsDesired, expected);
  }

  static Stream<Arguments> branches() {
    return Stream.of(
        row("empty selector: SelectingAll, even when deleted or paused",
            b -> b.editSpec().withNewSelector().endSelector().withPaused(true).endSpec()
                .editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata(),
            3, SyncPlan.Branch.SELECTING_ALL),
        row("being deleted: status only, even when paused",
            b -> b.editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata()
                .editSpec().withPaused(true).endSpec(), 3, SyncPlan.Branch.STATUS_ONLY),
        row("paused: sync, even with a rollback request", b -> b.editSpec().withPaused(true).endSpec()
            .editMetadata().addToAnnotations(Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION, "1")
            .endMetadata(), 3, SyncPlan.Branch.PAUSED_SYNC),
        row("deprecated rollback request", b -> b.editMetadata()
            .addToAnnotations(Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION, "0").endMetadata(), 2,
            SyncPlan.Branch.ROLLBACK),
        row("replicas changed since the RS was sized: scaling event", b -> b, 2,
            SyncPlan.Branch.SCALING_SYNC),
        row("rolling update", b -> b, 3, SyncPlan.Branch.ROLLING_UPDATE),
        row("recreate", b -> b.editSpec().withNewStrategy().withType("Recreate").endStrategy().endSpec(), 3,
            SyncPlan.Branch.RECREATE),
        row("unknown strategy", b -> b.editSpec().withNewStrategy().withType("Canary").endStrategy().endSpec(),
            3, SyncPlan.Branch.UNSUPPORTED_STRATEGY));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void branches(String name, UnaryOperator<DeploymentBuilder> change, int rsDesired, SyncPlan.Branch expected) {
    Deployment d = change.apply(new DeploymentBuilder(rolling(3, 1, 0))).build();
    ReplicaSet cur = current(d, 3, rsDesired);
    assertThat(SyncPlan.decide(d, List.of(cur))).isEqualTo(expected);
  }

  @Test
  void rollbackToReadsTheAnnotation() {
    Deployment d = new DeploymentBuilder(rolling(3, 1, 0)).editMetadata()
        .addToAnnotations(Revisions.DEPRECATED_ROLLBACK_TO_ANNOTATION, "4").endMetadata().build();
    assertThat(SyncPlan.rollbackTo(d)).contains("4");
    assertThat(SyncPlan.rollbackTo(rolling(3, 1, 0))).isEmpty();
  }

  @Test
  void pausedSyncScalesAndTrimsHistory() {
    Deployment d = new DeploymentBuilder(rolling(6, 0, 1)).editSpec().withPaused(true)
        .withRevisionHistoryLimit(0).endSpec().build();
    ReplicaSet nu = sizedFor(rs("new", 2, 20), 3, 0);
    ReplicaSet old = sizedFor(rs("old", 1, 10), 3, 0);
    ReplicaSet drained = Fixtures.withRevision(rs("drained", 0, 0), "1");
    SyncPlan.ScalingSync sync = SyncPlan.sync(d, Optional.of(nu), List.of(old, drained));
    assertThat(sync.scales()).extracting(ReplicaSetScale::name, ReplicaSetScale::newReplicas)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("new", 4),
            org.assertj.core.groups.Tuple.tuple("old", 2));
    assertThat(sync.toDelete()).extracting(ReplicaSetUtil::name).containsExactly("drained");
  }

  @Test
  void scalingEventSyncLeavesHistoryAlone() {
    Deployment d = new DeploymentBuilder(rolling(6, 0, 1)).editSpec().withRevisionHistoryLimit(0).endSpec()
        .build();
    ReplicaSet nu = sizedFor(rs("new", 2, 20), 3, 0);
    ReplicaSet drained = rs("drained", 0, 0);
    SyncPlan.ScalingSync sync = SyncPlan.sync(d, Optional.of(nu), List.of(drained));
    assertThat(sync.scales()).extracting(ReplicaSetScale::newReplicas).containsExactly(6);
    assertThat(sync.toDelete()).isEmpty();
  }
}
