package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Walks whole rollouts through a tiny in-memory cluster: each tick the Deployment logic plans one sync
 * (creating the new ReplicaSet when missing, then {@link RollingRollout#plan}), a stand-in ReplicaSet
 * controller creates or deletes pods (not-ready ones first), and every pod created in a tick becomes available
 * at the end of it, unless it belongs to the broken set. Invariants are checked after every tick.
 */
class RollingUpdateSimulationTest {

  /** One pod: available or not; broken pods never become available. */
  private static final class SimPod {
    boolean available;
    final boolean broken;

    SimPod(boolean available, boolean broken) {
      this.available = available;
      this.broken = broken;
    }
  }

  /** A ReplicaSet of the model: its object (spec, metadata) plus its pods. Confined to the test thread. */
  private static final class SimRS {
    ReplicaSet object;
    final List<SimPod> pods = new ArrayList<>();

    SimRS(ReplicaSet object) {
      this.object = object;
    }

    int spec() {
      return object.getSpec().getReplicas();
    }

    int available() {
      return (int) pods.stream().filter(p -> p.available).count();
    }

    /** The object as a lister would return it: spec plus an up-to-date status. */
    ReplicaSet observed() {
      return new ReplicaSetBuilder(object).withNewStatus().withReplicas(pods.size())
          .withReadyReplicas(available()).withAvailableReplicas(available())
          .withObservedGeneration(1L).endStatus().build();
    }

    /** Stand-in ReplicaSet controller: create not-ready pods, delete not-available pods first. */
    void reconcilePods() {
      while (pods.size() < spec()) {
        pods.add(new SimPod(false, false));
      }
      while (pods.size() > spec()) {
        SimPod victim = pods.stream().filter(p -> !p.available).findFirst().orElse(pods.get(pods.size() - 1));
        pods.remove(victim);
      }
    }
  }

  private record Tick(int totalPods, int available, RollingRollout.Kind kind, int cleanup, int scaleDown) {
  }

  private static final class Cluster {
    Deployment d;
    final List<SimRS> replicaSets = new ArrayList<>();
    final List<Tick> ticks = new ArrayList<>();
    Instant now = Fixtures.T0.plusSeconds(3600);

    int totalPods() {
      return replicaSets.stream().mapToInt(r -> r.pods.size()).sum();
    }

    int available() {
      return replicaSets.stream().mapToInt(SimRS::available).sum();
    }

    List<ReplicaSet> observed() {
      return replicaSets.stream().map(SimRS::observed).toList();
    }

    SimRS byName(String name) {
      return replicaSets.stream().filter(r -> ReplicaSetUtil.name(r.object).equals(name)).findFirst()
          .orElseThrow();
    }

    /** One sync of the Deployment, then pods follow, then the tick's pods become available. */
    void tick() {
      List<ReplicaSet> rsList = observed();
      Optional<ReplicaSet> newRS = ReplicaSetClassifier.findNewReplicaSet(d, rsList);
      List<ReplicaSet> oldRSs = ReplicaSetClassifier.findOldReplicaSets(d, rsList).all();
      if (newRS.isEmpty()) {
        NewReplicaSets.Creation creation = NewReplicaSets.newReplicaSet(d, oldRSs);
        ReplicaSet created = new ReplicaSetBuilder(creation.replicaSet()).editMetadata()
            .withUid("uid-" + creation.replicaSet().getMetadata().getName())
            .withCreationTimestamp(now.toString()).endMetadata().build();
        replicaSets.add(new SimRS(created));
        newRS = Optional.of(new SimRS(created).observed());
      }
      RollingRollout.Step step = RollingRollout.plan(d, newRS.get(), oldRSs);
      int cleanup = 0;
      int scaleDown = 0;
      if (step.kind() == RollingRollout.Kind.SCALE_DOWN_OLD) {
        OldReplicaSetsScaleDown plan = RollingUpdateMath.reconcileOldReplicaSets(
            concat(oldRSs, newRS.get()), ReplicaSetUtil.filterActive(oldRSs), newRS.get(), d);
        cleanup = plan.cleanupCount();
        scaleDown = plan.scaleDownCount();
      }
      for (ReplicaSetScale s : step.scales()) {
        SimRS target = byName(s.name());
        target.object = s.onto(target.object).applyTo(d);
      }
      replicaSets.forEach(SimRS::reconcilePods);
      ticks.add(new Tick(totalPods(), available(), step.kind(), cleanup, scaleDown));
      // Status as the controller would write it at the end of the sync.
      RolloutStatus status = DeploymentProgress.syncRolloutStatus(observed(),
          ReplicaSetClassifier.findNewReplicaSet(d, observed()), d, now);
      d = new DeploymentBuilder(d).withStatus(status.status()).build();
      // Kubelet: pods created this tick become available now (broken ones never).
      replicaSets.forEach(r -> r.pods.forEach(p -> p.available = !p.broken));
      now = now.plusSeconds(10);
    }

    private static List<ReplicaSet> concat(List<ReplicaSet> a, ReplicaSet b) {
      List<ReplicaSet> all = new ArrayList<>(a);
      all.add(b);
      return all;
    }
  }

  /** A cluster where "foo" ran {@code replicas} pods of nginx:1 and was just updated to nginx:2. */
  private static Cluster updatedDeployment(int replicas, Object surge, Object unavailable, int brokenOldPods) {
    Cluster c = new Cluster();
    ReplicaSet oldObject = Fixtures.withRevision(new ReplicaSetBuilder(Fixtures.rs("foo-old", replicas, 0))
        .editSpec().withTemplate(Fixtures.template("nginx:1")).endSpec().build(), "1");
    oldObject = Fixtures.sizedFor(oldObject, replicas, RollingUpdateMath.maxSurge(
        Fixtures.rolling(replicas, surge, unavailable)));
    SimRS old = new SimRS(oldObject);
    for (int i = 0; i < replicas; i++) {
      boolean broken = i < brokenOldPods;
      old.pods.add(new SimPod(!broken, broken));
    }
    c.replicaSets.add(old);
    c.d = new DeploymentBuilder(Fixtures.rolling(replicas, surge, unavailable))
        .editSpec().withTemplate(Fixtures.template("nginx:2")).endSpec()
        .editMetadata().withGeneration(2L).endMetadata()
        .build();
    return c;
  }

  private static void runToCompletion(Cluster c, int maxTotal, int minAvailable, String expectedRevision) {
    String newName = null;
    for (int i = 0; i < 100; i++) {
      c.tick();
      Tick t = c.ticks.get(c.ticks.size() - 1);
      assertThat(t.totalPods()).as("pods after tick %d", i + 1).isLessThanOrEqualTo(maxTotal);
      assertThat(t.available()).as("available after tick %d", i + 1).isGreaterThanOrEqualTo(minAvailable);
      newName = ReplicaSetClassifier.findNewReplicaSet(c.d, c.observed()).map(ReplicaSetUtil::name)
          .orElseThrow();
      SimRS nu = c.byName(newName);
      boolean oldGone = c.replicaSets.stream().filter(r -> r != nu)
          .allMatch(r -> r.spec() == 0 && r.pods.isEmpty());
      if (oldGone && nu.spec() == c.d.getSpec().getReplicas()
          && nu.available() == c.d.getSpec().getReplicas()) {
        c.tick(); // one more sync records the completed rollout
        break;
      }
    }
    int replicas = c.d.getSpec().getReplicas();
    SimRS nu = c.byName(newName);
    assertThat(nu.spec()).isEqualTo(replicas);
    assertThat(nu.pods).hasSize(replicas).allMatch(p -> p.available);
    assertThat(c.replicaSets).filteredOn(r -> r != nu).allMatch(r -> r.spec() == 0 && r.pods.isEmpty());
    assertThat(DeploymentProgress.deploymentComplete(c.d, c.d.getStatus())).isTrue();
    assertThat(DeploymentConditions.getCondition(c.d.getStatus(), DeploymentConditions.TYPE_PROGRESSING))
        .get().extracting(cond -> cond.getReason())
        .isEqualTo(DeploymentConditions.REASON_NEW_REPLICA_SET_AVAILABLE);
    assertThat(nu.object.getMetadata().getAnnotations())
        .containsEntry(Revisions.REVISION_ANNOTATION, expectedRevision)
        .containsEntry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, Integer.toString(replicas));
  }

  static Stream<Arguments> rollouts() {
    return Stream.of(
        Arguments.of("the issue's 20 replicas, maxSurge 3, maxUnavailable 2", 20, 3, 2, 23, 18),
        Arguments.of("defaults 25%/25% of 10", 10, "25%", "25%", 13, 8),
        Arguments.of("10% of 3: surge 1, unavailable 0", 3, "10%", "10%", 4, 3),
        Arguments.of("surge only (0 unavailable)", 5, 2, 0, 7, 5),
        Arguments.of("unavailable only (0 surge)", 5, 0, 2, 5, 3),
        Arguments.of("0/0 written as percentages resolves to 0/1", 4, "0%", "0%", 4, 3));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void rollouts(String name, int replicas, Object surge, Object unavailable, int maxTotal, int minAvailable) {
    Cluster c = updatedDeployment(replicas, surge, unavailable, 0);
    runToCompletion(c, maxTotal, minAvailable, "2");
    assertThat(c.ticks).as("the rollout takes more than one step").hasSizeGreaterThan(2);
  }

  @Test
  void theIssueScenarioStepByStep() {
    Cluster c = updatedDeployment(20, 3, 2, 0);
    c.tick();
    // Created at 3 (20 + 3 surge) and, in the same sync, 2 old pods removed (20 available - 18 floor).
    assertThat(c.replicaSets.get(1).spec()).isEqualTo(3);
    assertThat(c.byName("foo-old").spec()).isEqualTo(18);
    c.tick();
    // New pods now available: 18 + 3 = 21 available, 3 above the floor of 18.
    assertThat(c.byName("foo-old").spec()).isEqualTo(18);
    assertThat(c.ticks.get(1).kind()).isEqualTo(RollingRollout.Kind.SCALE_NEW);
    assertThat(c.replicaSets.get(1).spec()).isEqualTo(5);
    c.tick();
    // Ceiling of 23 reached and all 5 new pods available: 23 available, 5 may go.
    assertThat(c.ticks.get(2).kind()).isEqualTo(RollingRollout.Kind.SCALE_DOWN_OLD);
    assertThat(c.byName("foo-old").spec()).isEqualTo(13);
    runToCompletion(c, 23, 18, "2");
  }

  @Test
  void unhealthyOldReplicasAreCleanedUpFirst() {
    // 2 of the 20 old pods never become ready: availability starts exactly at the floor of 18.
    Cluster c = updatedDeployment(20, 3, 2, 2);
    c.tick();
    Tick first = c.ticks.get(0);
    assertThat(first.cleanup()).as("unhealthy replicas removed").isEqualTo(2);
    assertThat(first.scaleDown()).as("no healthy replica may go yet").isZero();
    SimRS old = c.byName("foo-old");
    assertThat(old.spec()).isEqualTo(18);
    assertThat(old.pods).hasSize(18).allMatch(p -> !p.broken);
    runToCompletion(c, 23, 18, "2");
  }

  @Test
  void oldestOfSeveralOldReplicaSetsDrainsFirst() {
    Cluster c = updatedDeployment(10, 2, 2, 0);
    // Split the old pods over two old ReplicaSets: "foo-older" (revision 1, created first) keeps 4.
    SimRS old = c.byName("foo-old");
    old.object = new ReplicaSetBuilder(Fixtures.withRevision(old.object, "2")).editSpec().withReplicas(6)
        .endSpec().build();
    old.pods.subList(6, 10).clear();
    ReplicaSet olderObject = new ReplicaSetBuilder(Fixtures.rs("foo-older", 4, 0)).editMetadata()
        .withCreationTimestamp(Fixtures.T0.minusSeconds(60).toString()).endMetadata()
        .editSpec().withTemplate(Fixtures.template("nginx:0")).endSpec().build();
    SimRS older = new SimRS(Fixtures.sizedFor(Fixtures.withRevision(olderObject, "1"), 10, 2));
    for (int i = 0; i < 4; i++) {
      older.pods.add(new SimPod(true, false));
    }
    c.replicaSets.add(0, older);
    c.tick();
    assertThat(older.spec()).as("older drained first").isEqualTo(2);
    assertThat(c.byName("foo-old").spec()).isEqualTo(6);
    runToCompletion(c, 12, 8, "3");
  }
}
