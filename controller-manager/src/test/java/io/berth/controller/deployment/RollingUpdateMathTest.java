package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RollingUpdateMathTest {

  private static IntOrString io(Object v) {
    return v == null ? null : new IntOrString(v);
  }

  static Stream<Arguments> fenceposts() {
    return Stream.of(
        Arguments.of("10% of 3: surge rounds up to 1, unavailable rounds down to 0", "10%", "10%", 3, 1, 0),
        Arguments.of("0 surge and 10% of 3 unavailable: both resolve to 0, unavailable becomes 1",
            0, "10%", 3, 0, 1),
        Arguments.of("25%/25% of 10", "25%", "25%", 10, 3, 2),
        Arguments.of("explicit 0/0 resolves to 0/1", 0, 0, 10, 0, 1),
        Arguments.of("absent values count as 0 and then 0/1", null, null, 10, 0, 1),
        Arguments.of("0%/0% resolves to 0/1", "0%", "0%", 10, 0, 1),
        Arguments.of("absolute values are taken as is", 3, 2, 20, 3, 2),
        Arguments.of("absolute values may exceed desired", 30, 25, 20, 30, 25),
        Arguments.of("100%/100% of 5", "100%", "100%", 5, 5, 5),
        Arguments.of("1%/1% of 1: surge 1, unavailable 0", "1%", "1%", 1, 1, 0),
        Arguments.of("33%/33% of 10: 4 up, 3 down", "33%", "33%", 10, 4, 3),
        Arguments.of("any percent of 0 desired is 0/1", "50%", "50%", 0, 0, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void fenceposts(String name, Object surge, Object unavailable, int desired, int expSurge, int expUnavailable) {
    RollingUpdateMath.Fenceposts f = RollingUpdateMath.resolveFenceposts(io(surge), io(unavailable), desired);
    assertThat(f).isEqualTo(new RollingUpdateMath.Fenceposts(expSurge, expUnavailable));
  }

  @Test
  void fencepostErrorsNameTheField() {
    assertThatThrownBy(() -> RollingUpdateMath.resolveFenceposts(io("x%"), io(1), 3))
        .hasMessageStartingWith("spec.strategy.rollingUpdate.maxSurge:");
    assertThatThrownBy(() -> RollingUpdateMath.resolveFenceposts(io(1), io("1"), 3))
        .hasMessageStartingWith("spec.strategy.rollingUpdate.maxUnavailable:");
  }

  static Stream<Arguments> deploymentFenceposts() {
    return Stream.of(
        Arguments.of("rolling 25%/25% of 10", rolling(10, "25%", "25%"), 3, 2),
        Arguments.of("maxUnavailable is capped at replicas", rolling(3, 0, 5), 0, 3),
        Arguments.of("zero replicas: no unavailable budget", rolling(0, 1, 1), 1, 0),
        Arguments.of("both zero: one unavailable", rolling(4, 0, 0), 0, 1),
        Arguments.of("recreate has neither", Fixtures.recreate(5), 0, 0),
        Arguments.of("unparsable value reads as 0 (validation reports it)", rolling(5, "bad%", 1), 0, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void deploymentFenceposts(String name, Deployment d, int expSurge, int expUnavailable) {
    assertThat(RollingUpdateMath.maxSurge(d)).isEqualTo(expSurge);
    assertThat(RollingUpdateMath.maxUnavailable(d)).isEqualTo(expUnavailable);
    if (RollingUpdateMath.isRollingUpdate(d)) {
      assertThat(RollingUpdateMath.minAvailable(d)).isEqualTo(d.getSpec().getReplicas() - expUnavailable);
    } else {
      assertThat(RollingUpdateMath.minAvailable(d)).isZero();
    }
  }

  static Stream<Arguments> newRSNewReplicas() {
    return Stream.of(
        Arguments.of("no surge and full old RS: cannot grow", 10, 0, 10, 0, 0),
        Arguments.of("surge 2 over a full old RS: grows by 2", 10, 2, 10, 0, 2),
        Arguments.of("old RS already halved: grows to the ceiling", 10, 2, 5, 0, 7),
        Arguments.of("ceiling reached: keeps its size", 10, 2, 10, 2, 2),
        Arguments.of("20 replicas, surge 3, first step", 20, 3, 20, 0, 3),
        Arguments.of("20 replicas, surge 3, after old went to 17", 20, 3, 17, 3, 6),
        Arguments.of("never beyond replicas even with head-room", 20, 3, 0, 18, 20),
        Arguments.of("25% surge of 10 rounds up to 3", 10, "25%", 10, 0, 3),
        Arguments.of("10% surge of 3 rounds up to 1", 3, "10%", 3, 0, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void newRSNewReplicas(String name, int replicas, Object surge, int oldSize, int newSize, int expected) {
    Deployment d = rolling(replicas, surge, 0);
    ReplicaSet old = rs("old", oldSize, 0);
    ReplicaSet nu = rs("new", newSize, 10);
    assertThat(RollingUpdateMath.newRSNewReplicas(d, List.of(old, nu), nu)).isEqualTo(expected);
  }

  @Test
  void recreateNewReplicaSetGoesStraightToReplicas() {
    ReplicaSet nu = rs("new", 0, 10);
    assertThat(RollingUpdateMath.newRSNewReplicas(Fixtures.recreate(7), List.of(rs("old", 7, 0), nu), nu))
        .isEqualTo(7);
  }

  @Test
  void unknownStrategyAndBadSurgeAreErrors() {
    Deployment unknown = new DeploymentBuilder(rolling(3, 1, 0))
        .editSpec().editStrategy().withType("BlueGreen").endStrategy().endSpec().build();
    ReplicaSet nu = rs("new", 0, 10);
    assertThatThrownBy(() -> RollingUpdateMath.newRSNewReplicas(unknown, List.of(nu), nu))
        .hasMessageContaining("BlueGreen");
    assertThatThrownBy(() -> RollingUpdateMath.newRSNewReplicas(rolling(3, "abc%", 0), List.of(nu), nu))
        .hasMessage("spec.strategy.rollingUpdate.maxSurge: invalid value \"abc%\"");
  }

  static Stream<Arguments> saturation() {
    ReplicaSet full = Fixtures.sizedFor(rs("new", 5, 5, 10), 5, 1);
    return Stream.of(
        Arguments.of("no new RS", Optional.empty(), false),
        Arguments.of("size, annotation and availability all equal replicas", Optional.of(full), true),
        Arguments.of("not all pods available", Optional.of(Fixtures.sizedFor(rs("new", 5, 4, 10), 5, 1)),
            false),
        Arguments.of("annotation missing", Optional.of(rs("new", 5, 5, 10)), false),
        Arguments.of("annotation from an older size", Optional.of(Fixtures.sizedFor(rs("new", 5, 5, 10), 4,
            1)), false),
        Arguments.of("size differs", Optional.of(Fixtures.sizedFor(rs("new", 6, 6, 10), 5, 1)), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void saturation(String name, Optional<ReplicaSet> newRS, boolean expected) {
    assertThat(RollingUpdateMath.isSaturated(rolling(5, 1, 0), newRS)).isEqualTo(expected);
  }

  static Stream<Arguments> reconcileNewReplicaSet() {
    return Stream.of(
        Arguments.of("already at replicas", 10, 2, 0, 10, null, null),
        Arguments.of("no surge: stays", 10, 0, 10, 0, null, null),
        Arguments.of("grows by surge", 10, 2, 10, 0, 2, "up"),
        Arguments.of("above replicas: scaled down to replicas", 10, 2, 2, 11, 10, "down"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void reconcileNewReplicaSet(String name, int replicas, int surge, int oldSize, int newSize, Integer expected,
                String operation) {
    Deployment d = rolling(replicas, surge, 0);
    ReplicaSet nu = rs("new", newSize, 10);
    Optional<ReplicaSetScale> step =
        RollingUpdateMath.reconcileNewReplicaSet(List.of(rs("old", oldSize, 0), nu), nu, d);
    if (expected == null) {
      assertThat(step).isEmpty();
    } else {
      assertThat(step).get().extracting(ReplicaSetScale::newReplicas, ReplicaSetScale::scalingOperation)
          .containsExactly(expected, operation);
    }
  }

  /**
   * Rows: replicas, maxSurge, maxUnavailable, old RSs as {name, size, available, createdAt}, new {size,
   * available}; expected clean-up total, scale-down total, final old sizes, aborted.
   */
  static Stream<Arguments> reconcileOldReplicaSets() {
    return Stream.of(
        Arguments.of("0/0 fenceposts still allow one old pod down", 10, 0, 0,
            List.of(rs("old", 10, 10, 0)), 0, 0, 0, 1, Map.of("old", 9), false),
        Arguments.of("maxUnavailable 2: two old pods down", 10, 0, 2,
            List.of(rs("old", 10, 10, 0)), 0, 0, 0, 2, Map.of("old", 8), false),
        Arguments.of("two unhealthy old pods are cleaned up, nothing healthy goes", 10, 0, 2,
            List.of(rs("old", 10, 8, 0)), 0, 0, 2, 0, Map.of("old", 8), false),
        Arguments.of("one unhealthy cleaned, then one healthy scaled down", 10, 0, 2,
            List.of(rs("old", 10, 9, 0)), 0, 0, 1, 1, Map.of("old", 8), false),
        Arguments.of("unavailable new pods block scaling old ones down", 10, 0, 2,
            List.of(rs("old", 8, 8, 0)), 2, 0, 0, 0, Map.of(), false),
        Arguments.of("crash-looping new RS: 13 - 8 - 5 = 0, old RS kept even with a lost node", 10, 3, 2,
            List.of(rs("old", 8, 7, 0)), 5, 0, 0, 0, Map.of(), false),
        Arguments.of("oldest old RS is scaled down first", 10, 0, 2,
            List.of(rs("b-newer", 6, 6, 5), rs("a-older", 4, 4, 1)), 0, 0, 0, 2,
            Map.of("a-older", 2), false),
        Arguments.of("unhealthy clean-up walks oldest first across RSs", 10, 0, 2,
            List.of(rs("b-newer", 5, 4, 5), rs("a-older", 5, 4, 1)), 0, 0, 2, 0,
            Map.of("a-older", 4, "b-newer", 4), false),
        Arguments.of("clean-up budget is shared: the oldest takes it", 10, 0, 1,
            List.of(rs("b-newer", 5, 3, 5), rs("a-older", 5, 3, 1)), 0, 0, 1, 0,
            Map.of("a-older", 4), false),
        Arguments.of("more available than desired aborts the clean-up", 10, 0, 2,
            List.of(rs("old", 5, 7, 0)), 5, 5, 0, 0, Map.of(), true),
        Arguments.of("surge pods available: scale down to the availability floor", 20, 3, 2,
            List.of(rs("old", 20, 20, 0)), 3, 3, 0, 5, Map.of("old", 15), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void reconcileOldReplicaSets(String name, int replicas, int surge, int unavailable, List<ReplicaSet> old,
                 int newSize, int newAvailable, int expCleanup, int expScaleDown,
                 Map<String, Integer> expFinal, boolean expAborted) {
    Deployment d = rolling(replicas, surge, unavailable);
    ReplicaSet nu = rs("new", newSize, newAvailable, 100);
    List<ReplicaSet> all = new java.util.ArrayList<>(old);
    all.add(nu);
    OldReplicaSetsScaleDown plan = RollingUpdateMath.reconcileOldReplicaSets(all, old, nu, d);
    assertThat(plan.cleanupCount()).as("clean-up").isEqualTo(expCleanup);
    assertThat(plan.scaleDownCount()).as("scale-down").isEqualTo(expScaleDown);
    assertThat(plan.finalSizes()).isEqualTo(expFinal);
    assertThat(plan.aborted()).isEqualTo(expAborted);
    assertThat(plan.scaledDown()).isEqualTo(!expAborted && expCleanup + expScaleDown > 0);
    plan.steps().forEach(s -> assertThat(s.scalingOperation()).isEqualTo("down"));
  }

  @Test
  void secondStepOnTheSameReplicaSetStartsWhereTheFirstEnded() {
    Deployment d = rolling(10, 0, 2);
    ReplicaSet old = rs("old", 10, 9, 0);
    ReplicaSet nu = rs("new", 0, 0, 100);
    OldReplicaSetsScaleDown plan = RollingUpdateMath.reconcileOldReplicaSets(List.of(old, nu), List.of(old), nu,
        d);
    assertThat(plan.steps()).extracting(ReplicaSetScale::oldReplicas, ReplicaSetScale::newReplicas)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(10, 9), org.assertj.core.groups.Tuple.tuple(9, 8));
    assertThat(plan.steps().get(1).eventMessage()).contains("Scaled down replica set old to 8 from 9");
    assertThat(old.getSpec().getReplicas()).as("input untouched").isEqualTo(10);
  }

  @Test
  void noOldReplicasMeansNothingToPlan() {
    Deployment d = rolling(10, 0, 2);
    ReplicaSet old = rs("old", 0, 0, 0);
    ReplicaSet nu = rs("new", 10, 10, 100);
    OldReplicaSetsScaleDown plan = RollingUpdateMath.reconcileOldReplicaSets(List.of(old, nu), List.of(old), nu,
        d);
    assertThat(plan.steps()).isEmpty();
    assertThat(plan.scaledDown()).isFalse();
  }
}
