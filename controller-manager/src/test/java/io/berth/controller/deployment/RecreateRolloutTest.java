package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.recreate;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RecreateRolloutTest {

  private static Pod pod(String phase, boolean terminating) {
    PodBuilder b = new PodBuilder().withNewMetadata().withName("p").endMetadata();
    if (terminating) {
      b.editMetadata().withDeletionTimestamp("2024-01-01T00:00:00Z").endMetadata();
    }
    if (phase != null) {
      b.withNewStatus().withPhase(phase).endStatus();
    }
    return b.build();
  }

  /** An old ReplicaSet already scaled to 0 whose status still reports {@code statusReplicas}. */
  private static ReplicaSet drainedOld(int statusReplicas) {
    return new ReplicaSetBuilder(rs("old", 0, 0)).editStatus().withReplicas(statusReplicas).endStatus().build();
  }

  static Stream<Arguments> oldPods() {
    return Stream.of(
        Arguments.of("no pods anywhere", 0, Map.of(), false),
        Arguments.of("old RS status still counts pods", 1, Map.of(), true),
        Arguments.of("running old pod", 0, Map.of("uid-old", List.of(pod("Running", false))), true),
        Arguments.of("pending old pod", 0, Map.of("uid-old", List.of(pod("Pending", false))), true),
        Arguments.of("unknown-phase old pod counts", 0, Map.of("uid-old", List.of(pod("Unknown", false))),
            true),
        Arguments.of("pod without status counts", 0, Map.of("uid-old", List.of(pod(null, false))), true),
        Arguments.of("terminating old pod counts until terminal", 0,
            Map.of("uid-old", List.of(pod("Running", true))), true),
        Arguments.of("succeeded and failed old pods do not count", 0,
            Map.of("uid-old", List.of(pod("Succeeded", false), pod("Failed", true))), false),
        Arguments.of("pods of the new RS are ignored", 0, Map.of("uid-new", List.of(pod("Running", false))),
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void oldPods(String name, int oldStatusReplicas, Map<String, List<Pod>> pods, boolean expected) {
    ReplicaSet nu = rs("new", 0, 10);
    assertThat(RecreateRollout.oldPodsRunning(Optional.of(nu), List.of(drainedOld(oldStatusReplicas)), pods))
        .isEqualTo(expected);
  }

  @Test
  void walksScaleDownWaitCreateScaleUp() {
    Deployment d = recreate(3);
    ReplicaSet old = rs("old", 3, 0);
    Map<String, List<Pod>> oldRunning = Map.of("uid-old", List.of(pod("Running", false)));

    RecreateRollout.Step first = RecreateRollout.plan(d, Optional.empty(), List.of(old), oldRunning);
    assertThat(first.kind()).isEqualTo(RecreateRollout.Kind.SCALE_DOWN_OLD);
    assertThat(first.scales()).extracting(ReplicaSetScale::name, ReplicaSetScale::newReplicas)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("old", 0));

    ReplicaSet scaledDown = new ReplicaSetBuilder(old).editSpec().withReplicas(0).endSpec().build();
    RecreateRollout.Step waiting = RecreateRollout.plan(d, Optional.empty(), List.of(scaledDown), oldRunning);
    assertThat(waiting.kind()).isEqualTo(RecreateRollout.Kind.WAIT_FOR_OLD_PODS);
    assertThat(waiting.scales()).isEmpty();

    ReplicaSet gone = new ReplicaSetBuilder(scaledDown).editStatus().withReplicas(0).withAvailableReplicas(0)
        .withReadyReplicas(0).endStatus().build();
    RecreateRollout.Step create = RecreateRollout.plan(d, Optional.empty(), List.of(gone), Map.of());
    assertThat(create.kind()).isEqualTo(RecreateRollout.Kind.CREATE_NEW_REPLICA_SET);
    NewReplicaSets.Creation creation = NewReplicaSets.newReplicaSet(d, List.of(gone));
    assertThat(creation.replicas()).as("recreate creates at full size").isEqualTo(3);
    assertThat(RecreateRollout.scaleUpNewReplicaSet(d, creation.replicaSet())).isEmpty();

    ReplicaSet small = new ReplicaSetBuilder(creation.replicaSet()).editSpec().withReplicas(1).endSpec().build();
    RecreateRollout.Step up = RecreateRollout.plan(d, Optional.of(small), List.of(gone), Map.of());
    assertThat(up.kind()).isEqualTo(RecreateRollout.Kind.SCALE_UP_NEW);
    assertThat(up.scales()).extracting(ReplicaSetScale::newReplicas).containsExactly(3);
  }

  @Test
  void historyIsTrimmedOnlyOnceTheStatusSaysComplete() {
    Deployment d = new DeploymentBuilder(recreate(2)).editSpec().withRevisionHistoryLimit(0).endSpec().build();
    ReplicaSet nu = rs("new", 2, 10);
    List<ReplicaSet> old = new ArrayList<>(List.of(drainedOld(0)));
    assertThat(RecreateRollout.plan(d, Optional.of(nu), old, Map.of()).toDelete()).isEmpty();
    Deployment complete = new DeploymentBuilder(d).withNewStatus().withObservedGeneration(1L).withReplicas(2)
        .withUpdatedReplicas(2).withAvailableReplicas(2).endStatus().build();
    assertThat(RecreateRollout.plan(complete, Optional.of(nu), old, Map.of()).toDelete())
        .extracting(ReplicaSetUtil::name).containsExactly("old");
  }
}
