package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static io.berth.controller.deployment.Fixtures.sizedFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProportionalScalingTest {

  private static final int NEWER = 7200;
  private static final int OLD = 3600;
  private static final int OLDER = 0;

  /** A scaling event: the ReplicaSets were last sized for {@code before}, the Deployment now says {@code after}. */
  private record Event(Deployment after, Deployment before, ReplicaSet newRS, List<ReplicaSet> oldRSs) {
  }

  private static Event event(Deployment after, Deployment before, ReplicaSet newRS, ReplicaSet... oldRSs) {
    int desired = before.getSpec().getReplicas();
    int surge = RollingUpdateMath.maxSurge(before);
    ReplicaSet annotatedNew = newRS == null ? null : sizedFor(newRS, desired, surge);
    List<ReplicaSet> annotatedOld = new ArrayList<>();
    for (ReplicaSet old : oldRSs) {
      annotatedOld.add(sizedFor(old, desired, surge));
    }
    return new Event(after, before, annotatedNew, annotatedOld);
  }

  private static Deployment plain(int replicas) {
    return rolling(replicas, 0, 0);
  }

  static Stream<Arguments> scale() {
    Deployment newTemplate14 = new DeploymentBuilder(plain(14)).editSpec()
        .withTemplate(Fixtures.template("nginx:changed")).endSpec().build();
    return Stream.of(
        Arguments.of("normal scaling event: 10 -> 12",
            event(plain(12), plain(10), rs("foo-v1", 10, NEWER)), Map.of("foo-v1", 12)),
        Arguments.of("normal scaling event: 10 -> 5",
            event(plain(5), plain(10), rs("foo-v1", 10, NEWER)), Map.of("foo-v1", 5)),
        Arguments.of("proportional: 5 -> 10 over 2 (new) and 3 (old)",
            event(plain(10), plain(5), rs("foo-v2", 2, NEWER), rs("foo-v1", 3, OLD)),
            Map.of("foo-v2", 4, "foo-v1", 6)),
        Arguments.of("proportional: 5 -> 3",
            event(plain(3), plain(5), rs("foo-v2", 2, NEWER), rs("foo-v1", 3, OLD)),
            Map.of("foo-v2", 1, "foo-v1", 2)),
        Arguments.of("proportional: 9 -> 4 empties the small old RS",
            event(plain(4), plain(9), rs("foo-v2", 8, NEWER), rs("foo-v1", 1, OLD)),
            Map.of("foo-v2", 4, "foo-v1", 0)),
        Arguments.of("proportional: 7 -> 10 over three RSs",
            event(plain(10), plain(7), rs("foo-v3", 2, NEWER), rs("foo-v2", 3, OLD),
                rs("foo-v1", 2, OLDER)),
            Map.of("foo-v3", 3, "foo-v2", 4, "foo-v1", 3)),
        Arguments.of("proportional: 13 -> 8 over three RSs",
            event(plain(8), plain(13), rs("foo-v3", 2, NEWER), rs("foo-v2", 8, OLD),
                rs("foo-v1", 3, OLDER)),
            Map.of("foo-v3", 1, "foo-v2", 5, "foo-v1", 2)),
        Arguments.of("leftover on growth goes to the newest of the equally large",
            event(plain(4), plain(3), rs("foo-v3", 1, NEWER), rs("foo-v2", 1, OLD),
                rs("foo-v1", 1, OLDER)),
            Map.of("foo-v3", 2, "foo-v2", 1, "foo-v1", 1)),
        Arguments.of("leftover on shrink comes from the oldest of the equally large",
            event(plain(2), plain(3), rs("foo-v3", 1, NEWER), rs("foo-v2", 1, OLD),
                rs("foo-v1", 1, OLDER)),
            Map.of("foo-v3", 1, "foo-v2", 1, "foo-v1", 0)),
        Arguments.of("no new RS: 4 -> 5 grows the newer old RS (2 * 5 / 4 = 2.5 rounds to 3)",
            event(plain(5), plain(4), null, rs("foo-v2", 2, OLD), rs("foo-v1", 2, OLDER)),
            Map.of("foo-v2", 3, "foo-v1", 2)),
        Arguments.of("down to zero empties everything",
            event(plain(0), plain(6), rs("foo-v3", 3, NEWER), rs("foo-v2", 2, OLD),
                rs("foo-v1", 1, OLDER)),
            Map.of("foo-v3", 0, "foo-v2", 0, "foo-v1", 0)),
        Arguments.of("up from zero: only the new RS grows",
            event(plain(6), plain(6), rs("foo-v3", 0, NEWER), rs("foo-v2", 0, OLD),
                rs("foo-v1", 0, OLDER)),
            Map.of("foo-v3", 6, "foo-v2", 0, "foo-v1", 0)),
        Arguments.of("surge counts in the proportions: 10+2 -> 20+2 over 6/6",
            event(rolling(20, 2, 0), rolling(10, 2, 0), rs("foo-v2", 6, NEWER), rs("foo-v1", 6, OLD)),
            Map.of("foo-v2", 11, "foo-v1", 11)),
        Arguments.of("surge and size both change: 10+3 -> 50+6 over 5/8",
            event(rolling(50, 6, 0), rolling(10, 3, 0), rs("foo-v2", 5, NEWER), rs("foo-v1", 8, OLD)),
            Map.of("foo-v2", 22, "foo-v1", 34)),
        Arguments.of("size and template change together (no new RS yet): 10 -> 14 over 7/3",
            event(newTemplate14, plain(10), null, rs("foo-v2", 7, NEWER), rs("foo-v1", 3, OLD)),
            Map.of("foo-v2", 10, "foo-v1", 4)),
        Arguments.of("saturated-looking but broken new RS leaves old pods alone",
            event(rolling(2, 1, 1), rolling(2, 1, 1), rs("foo-v2", 2, 0, NEWER), rs("foo-v1", 1, OLD)),
            Map.of("foo-v2", 2, "foo-v1", 1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void scale(String name, Event e, Map<String, Integer> expected) {
    List<ReplicaSetScale> steps = ProportionalScaling.scale(e.after(), Optional.ofNullable(e.newRS()),
        e.oldRSs());
    Map<String, Integer> sizes = new HashMap<>();
    if (e.newRS() != null) {
      sizes.put(e.newRS().getMetadata().getName(), e.newRS().getSpec().getReplicas());
    }
    e.oldRSs().forEach(rs -> sizes.put(rs.getMetadata().getName(), rs.getSpec().getReplicas()));
    for (ReplicaSetScale step : steps) {
      sizes.put(step.name(), step.newReplicas());
      ReplicaSet written = step.applyTo(e.after());
      assertThat(written.getSpec().getReplicas()).isEqualTo(step.newReplicas());
      assertThat(ProportionalScaling.desiredReplicasAnnotation(written))
          .contains(e.after().getSpec().getReplicas());
      assertThat(ProportionalScaling.maxReplicasAnnotation(written))
          .contains(e.after().getSpec().getReplicas() + RollingUpdateMath.maxSurge(e.after()));
      if (step.sizeChanged()) {
        assertThat(step.scalingOperation()).isEqualTo(step.newReplicas() > step.oldReplicas() ? "up" : "down");
      }
    }
    assertThat(sizes).isEqualTo(expected);
  }

  @Test
  void upFromZeroDoesNotTouchEmptyOldReplicaSets() {
    Event e = event(plain(6), plain(6), rs("foo-v3", 0, NEWER), rs("foo-v2", 0, OLD));
    List<ReplicaSetScale> steps = ProportionalScaling.scale(e.after(), Optional.of(e.newRS()), e.oldRSs());
    assertThat(steps).extracting(ReplicaSetScale::name).containsExactly("foo-v3");
    assertThat(steps.get(0).eventMessage()).contains("Scaled up replica set foo-v3 to 6 from 0");
  }

  @Test
  void saturatedNewReplicaSetScalesActiveOldOnesToZero() {
    Deployment d = rolling(5, 1, 0);
    ReplicaSet nu = sizedFor(rs("new", 5, 5, NEWER), 5, 1);
    ReplicaSet old = sizedFor(rs("old", 2, OLD), 5, 1);
    ReplicaSet empty = sizedFor(rs("empty", 0, OLDER), 5, 1);
    List<ReplicaSetScale> steps = ProportionalScaling.scale(d, Optional.of(nu), List.of(old, empty));
    assertThat(steps).extracting(ReplicaSetScale::name, ReplicaSetScale::newReplicas)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("old", 0));
  }

  @Test
  void annotationOnlyUpdateIsAStepWithoutEvent() {
    // Sizes already fit the new ceiling (4+1 = 5 active replicas) but the annotations are from before.
    Deployment d = rolling(4, 1, 0);
    ReplicaSet nu = sizedFor(rs("new", 3, NEWER), 5, 1);
    ReplicaSet old = sizedFor(rs("old", 2, OLD), 5, 1);
    List<ReplicaSetScale> steps = ProportionalScaling.scale(d, Optional.of(nu), List.of(old));
    assertThat(steps).hasSize(2).allMatch(s -> !s.sizeChanged());
    assertThat(steps).allMatch(s -> s.eventMessage().isEmpty());
    assertThat(steps.get(0).applyTo(d).getMetadata().getAnnotations())
        .containsEntry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "4")
        .containsEntry(ProportionalScaling.MAX_REPLICAS_ANNOTATION, "5");
  }

  @Test
  void recreateWithSeveralActiveReplicaSetsIsLeftToTheRollout() {
    Deployment d = Fixtures.recreate(10);
    List<ReplicaSetScale> steps = ProportionalScaling.scale(d, Optional.of(sizedFor(rs("new", 2, NEWER), 5, 0)),
        List.of(sizedFor(rs("old", 3, OLD), 5, 0)));
    assertThat(steps).isEmpty();
  }

  static Stream<Arguments> scalingEvent() {
    return Stream.of(
        Arguments.of("annotations match replicas", List.of(sizedFor(rs("a", 3, 0), 5, 0)), 5, false),
        Arguments.of("an active RS was sized for another count", List.of(sizedFor(rs("a", 3, 0), 4, 0)), 5,
            true),
        Arguments.of("inactive RSs do not count", List.of(sizedFor(rs("a", 0, 0), 4, 0)), 5, false),
        Arguments.of("RSs without the annotation do not count", List.of(rs("a", 3, 0)), 5, false),
        Arguments.of("unparsable annotation does not count",
            List.of(Fixtures.withAnnotations(rs("a", 3, 0),
                Map.of(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "many"))), 5, false),
        Arguments.of("one of several differs",
            List.of(sizedFor(rs("a", 3, 0), 5, 0), sizedFor(rs("b", 2, 1), 6, 0)), 5, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void scalingEvent(String name, List<ReplicaSet> rss, int replicas, boolean expected) {
    assertThat(ProportionalScaling.isScalingEvent(plain(replicas), rss)).isEqualTo(expected);
  }

  static Stream<Arguments> activeOrLatest() {
    ReplicaSet newActive = rs("new", 3, NEWER);
    ReplicaSet newEmpty = rs("new", 0, NEWER);
    ReplicaSet oldActive = rs("old", 2, OLD);
    ReplicaSet oldEmpty = rs("old", 0, OLD);
    ReplicaSet olderEmpty = rs("older", 0, OLDER);
    return Stream.of(
        Arguments.of("nothing at all", Optional.empty(), List.of(), null),
        Arguments.of("only the new RS is active", Optional.of(newActive), List.of(oldEmpty), "new"),
        Arguments.of("only an old RS is active", Optional.of(newEmpty), List.of(oldActive), "old"),
        Arguments.of("none active: the new RS", Optional.of(newEmpty), List.of(oldEmpty), "new"),
        Arguments.of("none active and no new RS: the newest old one", Optional.empty(),
            List.of(olderEmpty, oldEmpty), "old"),
        Arguments.of("two active: none (scale proportionally)", Optional.of(newActive), List.of(oldActive),
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void activeOrLatest(String name, Optional<ReplicaSet> newRS, List<ReplicaSet> oldRSs, String expected) {
    assertThat(ProportionalScaling.findActiveOrLatest(newRS, oldRSs).map(ReplicaSetUtil::name))
        .isEqualTo(Optional.ofNullable(expected));
  }

  @Test
  void fractionFallsBackToStatusReplicasWithoutAnnotation() {
    Deployment d = new DeploymentBuilder(plain(20)).withNewStatus().withReplicas(10).endStatus().build();
    // 5 of the 10 pods the Deployment reports, re-spread over 20: 10, i.e. +5.
    assertThat(ProportionalScaling.replicaSetFraction(rs("a", 5, 0), d)).isEqualTo(5);
    assertThat(ProportionalScaling.replicaSetFraction(sizedFor(rs("a", 5, 0), 5, 0), d)).isEqualTo(15);
    assertThat(ProportionalScaling.replicaSetFraction(rs("a", 5, 0), plain(0))).isEqualTo(-5);
    assertThat(ProportionalScaling.replicaSetFraction(rs("a", 5, 0), plain(20))).as("no base: 0").isZero();
  }

  @Test
  void proportionIsClampedToWhatIsLeft() {
    Deployment d = plain(20);
    ReplicaSet a = sizedFor(rs("a", 5, 0), 10, 0); // fraction +5
    assertThat(ProportionalScaling.proportion(Optional.of(a), d, 3, 0)).isEqualTo(3);
    assertThat(ProportionalScaling.proportion(Optional.of(a), d, 10, 8)).isEqualTo(2);
    assertThat(ProportionalScaling.proportion(Optional.of(a), d, 10, 10)).isZero();
    assertThat(ProportionalScaling.proportion(Optional.empty(), d, 10, 0)).isZero();
    assertThat(ProportionalScaling.proportion(Optional.of(rs("z", 0, 0)), d, 10, 0)).isZero();
    ReplicaSet shrinking = sizedFor(rs("b", 8, 0), 40, 0); // fraction round(8 * 20 / 40) - 8 = -4
    assertThat(ProportionalScaling.proportion(Optional.of(shrinking), d, -3, 0)).isEqualTo(-3);
    assertThat(ProportionalScaling.proportion(Optional.of(shrinking), d, -10, 0)).isEqualTo(-4);
  }

  @Test
  void replicasAnnotationsHelpers() {
    ReplicaSet plainRs = rs("a", 1, 0);
    assertThat(ProportionalScaling.replicasAnnotationsNeedUpdate(plainRs, 3, 4)).isTrue();
    ReplicaSet sized = sizedFor(plainRs, 3, 1);
    assertThat(ProportionalScaling.replicasAnnotationsNeedUpdate(sized, 3, 4)).isFalse();
    assertThat(ProportionalScaling.replicasAnnotationsNeedUpdate(sized, 3, 5)).isTrue();
    assertThat(ProportionalScaling.replicasAnnotationsNeedUpdate(sized, 2, 4)).isTrue();
    Map<String, String> original = Map.of("keep", "me");
    Map<String, String> updated = ProportionalScaling.withReplicasAnnotations(original, 7, 9);
    assertThat(updated).containsEntry("keep", "me")
        .containsEntry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "7")
        .containsEntry(ProportionalScaling.MAX_REPLICAS_ANNOTATION, "9");
    assertThat(original).hasSize(1);
    assertThat(ProportionalScaling.desiredReplicasAnnotation(sized)).contains(3);
    assertThat(ProportionalScaling.maxReplicasAnnotation(sized)).contains(4);
    assertThat(ProportionalScaling.desiredReplicasAnnotation(plainRs)).isEmpty();
  }
}
