package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HistoryCleanupTest {

  /** An old ReplicaSet "foo-N" with revision N, given spec and status replicas, created N seconds after T0. */
  private static ReplicaSet old(int revision, int spec, int status) {
    ReplicaSet base = Fixtures.withRevision(Fixtures.rs("foo-" + revision, spec, revision),
        Integer.toString(revision));
    return new ReplicaSetBuilder(base).editStatus().withReplicas(status).withAvailableReplicas(status).endStatus()
        .build();
  }

  private static ReplicaSet deleting(ReplicaSet rs) {
    return new ReplicaSetBuilder(rs).editMetadata().withDeletionTimestamp(Fixtures.T0.toString()).endMetadata()
        .build();
  }

  private static Deployment limit(Integer limit) {
    return new DeploymentBuilder(rolling(1, 1, 0)).editSpec().withRevisionHistoryLimit(limit).endSpec().build();
  }

  static Stream<Arguments> cleanup() {
    List<ReplicaSet> twelveDrained = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      twelveDrained.add(old(i, 0, 0));
    }
    return Stream.of(
        Arguments.of("limit 1 over three drained: the two oldest revisions go", 1,
            List.of(old(3, 0, 0), old(1, 0, 0), old(2, 0, 0)), List.of("foo-1", "foo-2")),
        Arguments.of("only fully scaled-down ones are deleted, no replacement for skipped", 0,
            List.of(old(1, 0, 0), old(2, 0, 1), old(3, 1, 0), old(4, 1, 1)), List.of("foo-1")),
        Arguments.of("limit 0 deletes every drained one", 0, List.of(old(1, 0, 0), old(2, 0, 0)),
            List.of("foo-1", "foo-2")),
        Arguments.of("nothing drained: nothing deleted", 0, List.of(old(1, 1, 1), old(2, 1, 1)), List.of()),
        Arguments.of("already being deleted: neither counted nor deleted", 0,
            List.of(deleting(old(1, 0, 0))), List.of()),
        Arguments.of("being-deleted ones do not count toward the limit", 1,
            List.of(deleting(old(1, 0, 0)), old(2, 0, 0)), List.of()),
        Arguments.of("unlimited history keeps everything", Integer.MAX_VALUE,
            List.of(old(1, 0, 0), old(2, 0, 0), old(3, 0, 0)), List.of()),
        Arguments.of("absent limit defaults to 10", null, twelveDrained, List.of("foo-1", "foo-2")),
        Arguments.of("within the limit: nothing", 5, List.of(old(1, 0, 0), old(2, 0, 0)), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void cleanup(String name, Integer limit, List<ReplicaSet> oldRSs, List<String> expected) {
    assertThat(HistoryCleanup.replicaSetsToDelete(limit(limit), oldRSs)).extracting(ReplicaSetUtil::name)
        .containsExactlyElementsOf(expected);
  }

  @Test
  void unobservedGenerationIsKept() {
    ReplicaSet stale = new ReplicaSetBuilder(old(1, 0, 0)).editMetadata().withGeneration(3L).endMetadata()
        .editStatus().withObservedGeneration(2L).endStatus().build();
    assertThat(HistoryCleanup.replicaSetsToDelete(limit(0), List.of(stale, old(2, 0, 0))))
        .extracting(ReplicaSetUtil::name).containsExactly("foo-2");
  }

  @Test
  void revisionOrderWinsOverCreationOrder() {
    // foo-9 was created first but carries the higher revision (a re-used ReplicaSet).
    ReplicaSet reused = new ReplicaSetBuilder(old(9, 0, 0)).editMetadata()
        .withCreationTimestamp(Fixtures.T0.minusSeconds(100).toString()).endMetadata().build();
    assertThat(HistoryCleanup.replicaSetsToDelete(limit(1), List.of(reused, old(2, 0, 0))))
        .extracting(ReplicaSetUtil::name).containsExactly("foo-2");
  }

  @Test
  void unparsableRevisionFallsBackToCreationTime() {
    ReplicaSet odd = Fixtures.withRevision(old(5, 0, 0), "x");
    List<ReplicaSet> sorted = new ArrayList<>(List.of(odd, old(1, 0, 0)));
    sorted.sort(HistoryCleanup.BY_REVISION);
    assertThat(sorted).extracting(ReplicaSetUtil::name).containsExactly("foo-1", "foo-5");
  }
}
