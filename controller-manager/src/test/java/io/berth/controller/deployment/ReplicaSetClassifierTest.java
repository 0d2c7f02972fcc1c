package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static io.berth.controller.deployment.Fixtures.withTemplate;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReplicaSetClassifierTest {

  private static final Deployment D = rolling(3, 1, 0);

  /** The Deployment's template as its ReplicaSets carry it: with a pod-template-hash label. */
  private static PodTemplateSpec current(String hash) {
    return new PodTemplateSpecBuilder(D.getSpec().getTemplate()).editMetadata()
        .addToLabels(PodTemplateHash.LABEL, hash).endMetadata().build();
  }

  private static ReplicaSet matching(String name, int createdAt, String hash) {
    return withTemplate(rs(name, 1, createdAt), current(hash));
  }

  static Stream<Arguments> newReplicaSet() {
    ReplicaSet other = rs("other", 1, 0);
    return Stream.of(
        Arguments.of("no ReplicaSet matches", List.of(other), null),
        Arguments.of("the only match", List.of(other, matching("match", 5, "h")), "match"),
        Arguments.of("several equal templates: the oldest wins",
            List.of(matching("young", 30, "h1"), matching("old", 10, "h2"), matching("mid", 20, "h3")),
            "old"),
        Arguments.of("equal creation times: the first name wins",
            List.of(matching("b", 10, "h1"), matching("a", 10, "h2")), "a"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void newReplicaSet(String name, List<ReplicaSet> rsList, String expected) {
    assertThat(ReplicaSetClassifier.findNewReplicaSet(D, rsList).map(ReplicaSetUtil::name).orElse(null))
        .isEqualTo(expected);
  }

  @Test
  void oldReplicaSetsSplitByReplicas() {
    ReplicaSet nu = matching("new", 50, "h");
    ReplicaSet active = rs("active", 2, 10);
    ReplicaSet drained = rs("drained", 0, 5);
    ReplicaSetClassifier.OldReplicaSets old =
        ReplicaSetClassifier.findOldReplicaSets(D, List.of(active, nu, drained));
    assertThat(old.all()).extracting(ReplicaSetUtil::name).containsExactly("active", "drained");
    assertThat(old.withReplicas()).extracting(ReplicaSetUtil::name).containsExactly("active");
  }

  @Test
  void duplicateMatchesThatLoseAreOld() {
    ReplicaSet winner = matching("winner", 1, "h1");
    ReplicaSet loser = matching("loser", 2, "h2");
    ReplicaSetClassifier.OldReplicaSets old = ReplicaSetClassifier.findOldReplicaSets(D, List.of(loser, winner));
    assertThat(old.all()).extracting(ReplicaSetUtil::name).containsExactly("loser");
  }

  @Test
  void inputOrderIsNotChanged() {
    List<ReplicaSet> rsList = new java.util.ArrayList<>(List.of(matching("young", 30, "h1"),
        matching("old", 10, "h2")));
    ReplicaSetClassifier.findNewReplicaSet(D, rsList);
    assertThat(rsList).extracting(ReplicaSetUtil::name).containsExactly("young", "old");
  }

  @Test
  void replicaSetWithoutCreationTimestampSortsFirst() {
    ReplicaSet undated = new ReplicaSetBuilder(matching("undated", 0, "h")).editMetadata()
        .withCreationTimestamp(null).endMetadata().build();
    assertThat(ReplicaSetClassifier.findNewReplicaSet(D, List.of(matching("dated", 0, "h2"), undated)))
        .get().extracting(ReplicaSetUtil::name).isEqualTo("undated");
  }
}
