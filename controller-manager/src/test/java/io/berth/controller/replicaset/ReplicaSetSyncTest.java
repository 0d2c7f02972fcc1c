package io.berth.controller.replicaset;

import static io.berth.controller.PodFixture.pod;
import static io.berth.controller.replicaset.ReplicaSetFixture.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.controller.ControllerExpectations;
import io.berth.controller.ControllerIndexes;
import io.berth.controller.GroupVersionKind;
import io.berth.controller.PodFixture;
import io.berth.controller.RecordingEventRecorder;
import io.berth.controller.WallClock;
import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.berth.informer.ThreadSafeStore;
import io.berth.workqueue.FakeClock;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One sync at a time against lister fixtures, a fake pod control and a fake API. */
class ReplicaSetSyncTest {

  private static final Instant T0 = Instant.parse("2025-06-01T12:00:00Z");

  private record Requeue(String key, Duration delay) {
  }

  private final FakeClock clock = new FakeClock();
  private final ThreadSafeStore<ReplicaSet> rsStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ControllerIndexes.CONTROLLER_UID_INDEX, ControllerIndexes.byControllerUid()));
  private final ThreadSafeStore<Pod> podStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ControllerIndexes.POD_CONTROLLER_UID_INDEX, ControllerIndexes.byPodControllerUid(),
      ControllerIndexes.ORPHAN_POD_LABELS_INDEX, ControllerIndexes.byOrphanPodLabels()));
  private final ControllerExpectations expectations = new ControllerExpectations(clock);
  private final FakePodControl podControl = new FakePodControl();
  private final FakeReplicaSetApi api = new FakeReplicaSetApi();
  private final RecordingEventRecorder recorder = new RecordingEventRecorder();
  private final List<Requeue> requeues = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final ReplicaSetSync sync = new ReplicaSetSync(new Lister<>(rsStore), rsStore, podStore,
      podControl, api, expectations, recorder, WallClock.anchored(clock, T0), pool, 500,
      (key, delay) -> requeues.add(new Requeue(key, delay)));

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private void add(ReplicaSet rs) {
    rsStore.add(rs);
    api.put(rs);
  }

  private void addPods(Pod... pods) {
    for (Pod p : pods) {
      podStore.add(p);
    }
  }

  private PodFixture ownedPod(String name, ReplicaSet rs) {
    return pod(name).labels(rs.getSpec().getTemplate().getMetadata().getLabels())
        .controlledBy(rs, GroupVersionKind.REPLICA_SET);
  }

  private ReplicaSetStatus lastStatus() {
    assertThat(api.statusWrites).isNotEmpty();
    return api.statusWrites.get(api.statusWrites.size() - 1).getStatus();
  }

  /** What the informer would hold after the status write. */
  private void observeStatusWrite() {
    ReplicaSet written = api.statusWrites.get(api.statusWrites.size() - 1);
    rsStore.update(written);
  }

  @Test
  void missingPodsAreCreatedWithAControllerRefAndExpected() throws Exception {
    ReplicaSet rs = replicaSet("web", 3).build();
    add(rs);
    sync.sync("default/web");
    assertThat(podControl.creates).hasSize(3).allSatisfy(c -> {
      assertThat(c.owner()).isEqualTo("web");
      assertThat(c.ref().getUid()).isEqualTo("uid-web");
      assertThat(c.ref().getKind()).isEqualTo("ReplicaSet");
    });
    assertThat(expectations.get("default/web").orElseThrow().add()).isEqualTo(3);
    assertThat(expectations.satisfiedExpectations("default/web")).isFalse();
    assertThat(lastStatus().getReplicas()).isZero();
    assertThat(lastStatus().getObservedGeneration()).isEqualTo(1L);
  }

  @Test
  void aSyncBeforeTheCreationsAreObservedCreatesNothingMore() throws Exception {
    add(replicaSet("web", 3).build());
    sync.sync("default/web");
    sync.sync("default/web"); // the cache still shows no pod: without expectations this would create 3 more
    assertThat(podControl.creates).hasSize(3);
    for (int i = 0; i < 3; i++) {
      expectations.creationObserved("default/web");
      addPods(ownedPod("web-" + i, rsStore.getByKey("default/web").orElseThrow()).build());
    }
    sync.sync("default/web");
    assertThat(podControl.creates).hasSize(3);
    assertThat(lastStatus().getReplicas()).isEqualTo(3);
  }

  @Test
  void oneSyncCreatesAtMostBurstReplicas() throws Exception {
    add(replicaSet("big", 600).build());
    sync.sync("default/big");
    assertThat(podControl.creates).hasSize(500);
    assertThat(expectations.get("default/big").orElseThrow().add()).isEqualTo(500);
  }

  @Test
  void aFailedSlowStartBatchUnexpectsTheSkippedCreationsAndSetsReplicaFailure() {
    add(replicaSet("web", 10).build());
    podControl.failCreate = n -> n == 4; // in the third batch (calls 4-7)
    assertThatThrownBy(() -> sync.sync("default/web")).hasMessageContaining("etcdserver: request timed out");
    assertThat(podControl.creates).hasSize(6);
    assertThat(expectations.get("default/web").orElseThrow().add()).as("only the 6 made are awaited").isEqualTo(6);
    ReplicaSetStatus status = lastStatus();
    assertThat(status.getConditions()).singleElement().satisfies(c -> {
      assertThat(c.getType()).isEqualTo("ReplicaFailure");
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("FailedCreate");
      assertThat(c.getMessage()).isEqualTo("etcdserver: request timed out");
    });
  }

  @Test
  void theReplicaFailureConditionIsRemovedOnceASyncSucceeds() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).withNewStatus().withReplicas(0).withObservedGeneration(1L)
        .withConditions(new ReplicaSetConditionBuilder().withType("ReplicaFailure").withStatus("True")
            .withReason("FailedCreate").withMessage("old").build()).endStatus().build();
    add(rs);
    sync.sync("default/web");
    assertThat(podControl.creates).hasSize(1);
    assertThat(lastStatus().getConditions()).isEmpty();
  }

  @Test
  void scalingDownDeletesPendingAndUnreadyPodsBeforeReadyOnesAndExpectsThemByKey() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(ownedPod("ready", rs).runningReady("n1", T0.minusSeconds(600)).build(),
        ownedPod("unassigned", rs).build(),
        ownedPod("unready", rs).onNode("n1").phase("Running").notReady().build());
    sync.sync("default/web");
    assertThat(podControl.deletes).containsExactlyInAnyOrder("default/unassigned", "default/unready");
    ControllerExpectations.Snapshot exp = expectations.get("default/web").orElseThrow();
    assertThat(exp.del()).isEqualTo(2);
    assertThat(exp.pendingDeletions()).containsExactlyInAnyOrder("default/unassigned", "default/unready");
  }

  @Test
  void relatedPodsOfSiblingReplicaSetsOnTheSameNodeRankTheVictims() throws Exception {
    Deployment owner = new DeploymentBuilder().withNewMetadata().withName("d").withNamespace("default")
        .withUid("uid-d").endMetadata().build();
    ReplicaSet a = ReplicaSetFixture.ownedBy(replicaSet("a", 1).build(), owner);
    ReplicaSet b = ReplicaSetFixture.ownedBy(replicaSet("b", 2).build(), owner);
    add(a);
    add(b);
    // without ranks a-new (newer) would go; with ranks a-crowded goes: n1 holds 3 related pods, n2 one
    addPods(ownedPod("a-crowded", a).runningReady("n1", T0.minus(Duration.ofDays(2))).build(),
        ownedPod("a-new", a).runningReady("n2", T0.minusSeconds(30)).build(),
        ownedPod("b-1", b).runningReady("n1", T0.minus(Duration.ofDays(2))).build(),
        ownedPod("b-2", b).runningReady("n1", T0.minus(Duration.ofDays(2))).build());
    sync.sync("default/a");
    assertThat(podControl.deletes).containsExactly("default/a-crowded");
  }

  @Test
  void aStandaloneReplicaSetRanksWithoutRelatedPods() throws Exception {
    ReplicaSet a = replicaSet("a", 1).build();
    add(a);
    addPods(ownedPod("a-crowded", a).runningReady("n1", T0.minus(Duration.ofDays(2))).build(),
        ownedPod("a-new", a).runningReady("n2", T0.minusSeconds(30)).build(),
        ownedPod("a-old-2", a).runningReady("n1", T0.minus(Duration.ofDays(2))).build());
    a = new ReplicaSetBuilder(a).editSpec().withReplicas(2).endSpec().build();
    add(a);
    sync.sync("default/a");
    assertThat(podControl.deletes).containsExactly("default/a-new");
  }

  @Test
  void aFailedDeleteIsUnexpectedAndSetsFailedDeleteButAVanishedPodIsNoError() {
    ReplicaSet rs = replicaSet("web", 0).build();
    add(rs);
    addPods(ownedPod("p1", rs).build(), ownedPod("p2", rs).build());
    podControl.failDelete = n -> true;
    assertThatThrownBy(() -> sync.sync("default/web")).hasMessageContaining("unable to delete pods");
    assertThat(expectations.get("default/web").orElseThrow().del()).isZero();
    assertThat(expectations.satisfiedExpectations("default/web")).isTrue();
    assertThat(lastStatus().getConditions()).singleElement()
        .satisfies(c -> assertThat(c.getReason()).isEqualTo("FailedDelete"));
  }

  @Test
  void aPodAlreadyGoneIsNotAnError() throws Exception {
    ReplicaSet rs = replicaSet("web", 0).build();
    add(rs);
    addPods(ownedPod("p1", rs).build());
    podControl.failDelete = n -> true;
    podControl.deleteFailureCode = 404;
    sync.sync("default/web");
    assertThat(expectations.satisfiedExpectations("default/web")).isTrue();
    assertThat(lastStatus().getConditions()).isEmpty();
  }

  @Test
  void unmetExpectationsLeaveOnlyTheStatusToUpdate() throws Exception {
    add(replicaSet("web", 3).build());
    expectations.expectCreations("default/web", 1);
    sync.sync("default/web");
    assertThat(podControl.creates).isEmpty();
    assertThat(api.statusWrites).hasSize(1);
  }

  @Test
  void aTerminatingReplicaSetIsNotScaled() throws Exception {
    add(replicaSet("web", 3).editMetadata().withDeletionTimestamp("2025-06-01T12:00:00Z").endMetadata().build());
    sync.sync("default/web");
    assertThat(podControl.creates).isEmpty();
  }

  @Test
  void aBadReplicaSetGetsAWarningNamingTheFieldWhileAGoodOneIsServed() throws Exception {
    add(ReplicaSetFixture.mismatched("bad"));
    add(replicaSet("good", 2).build());
    sync.sync("default/bad");
    sync.sync("default/good");
    assertThat(recorder.withReason("InvalidSelector")).singleElement().satisfies(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.objectName()).isEqualTo("bad");
      assertThat(e.message()).isEqualTo("ReplicaSet default/bad: spec.template.metadata.labels: Invalid value: "
          + "{app=bad}: `selector` (app in (something-else)) does not match template `labels`");
    });
    assertThat(podControl.creates).extracting(FakePodControl.Create::owner).containsExactly("good", "good");
  }

  @Test
  void aMissingReplicaCountOrAMalformedSelectorIsReportedNotActedOn() throws Exception {
    add(replicaSet("no-replicas", null).build());
    add(replicaSet("bad-op", 1).editSpec().editSelector().withMatchLabels(null).addNewMatchExpression()
        .withKey("app").withOperator("Near").withValues("bad-op").endMatchExpression().endSelector().endSpec()
        .build());
    sync.sync("default/no-replicas");
    sync.sync("default/bad-op");
    assertThat(recorder.withReason("InvalidSpec")).singleElement().extracting(RecordingEventRecorder.Recorded::message)
        .isEqualTo("ReplicaSet default/no-replicas: spec.replicas: Required value: the desired number of pods is "
            + "missing");
    assertThat(recorder.withReason("InvalidSelector")).singleElement()
        .extracting(RecordingEventRecorder.Recorded::message).asString()
        .startsWith("ReplicaSet default/bad-op: spec.selector.matchExpressions[0].operator: Unsupported value: "
            + "\"Near\"");
    assertThat(podControl.creates).isEmpty();
    assertThat(api.statusWrites).isEmpty();
  }

  @Test
  void theStatusIsWrittenOnlyWhenItChanges() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(ownedPod("p1", rs).runningReady("n1", T0.minusSeconds(60)).build());
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(1);
    assertThat(lastStatus()).satisfies(s -> {
      assertThat(s.getReplicas()).isEqualTo(1);
      assertThat(s.getFullyLabeledReplicas()).isEqualTo(1);
      assertThat(s.getReadyReplicas()).isEqualTo(1);
      assertThat(s.getAvailableReplicas()).isEqualTo(1);
      assertThat(s.getObservedGeneration()).isEqualTo(1L);
    });
    observeStatusWrite();
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(1);
  }

  @Test
  void aFailedStatusWriteIsRetriedOnceOnAFreshCopy() throws Exception {
    add(replicaSet("web", 0).build());
    api.put(replicaSet("web", 0).editMetadata().withResourceVersion("9").endMetadata().build());
    api.failNextStatusWrite(FakePodControl.apiError(409, "the object has been modified"));
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(2);
    assertThat(api.statusWrites.get(1).getMetadata().getResourceVersion()).isEqualTo("9");
    assertThat(api.gets).containsExactly("default/web");
  }

  @Test
  void aSyncBeforeTheInformerShowsTheLastStatusWriteWritesOverThatWriteWithoutAConflict() throws Exception {
    api.versioned = true;
    ReplicaSet rs = replicaSet("web", 2).build();
    add(rs);
    addPods(ownedPod("p1", rs).runningReady("n1", T0.minusSeconds(60)).build(),
        ownedPod("p2", rs).build());
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(1);
    // the informer still holds resourceVersion 1; p2 becomes ready before it delivers the write (2)
    podStore.update(ownedPod("p2", rs).runningReady("n1", T0.minusSeconds(60)).build());
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(2);
    assertThat(api.statusWrites.get(1).getMetadata().getResourceVersion()).isEqualTo("2");
    assertThat(lastStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(api.gets).as("no conflict, so no GET to retry on").isEmpty();
  }

  @Test
  void anInformerCopyNewerThanTheLastStatusWriteIsTheOneSynced() throws Exception {
    api.versioned = true;
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(ownedPod("p1", rs).runningReady("n1", T0.minusSeconds(60)).build());
    sync.sync("default/web");
    assertThat(api.statusWrites).hasSize(1);
    // someone scales it after our write: the informer shows resourceVersion 3 with two replicas
    ReplicaSet scaled = new ReplicaSetBuilder(api.server.get("default/web")).editMetadata().withResourceVersion("3")
        .withGeneration(2L).endMetadata().editSpec().withReplicas(2).endSpec().build();
    api.put(scaled);
    rsStore.update(scaled);
    sync.sync("default/web");
    assertThat(podControl.creates).as("the newer spec is acted on").hasSize(1);
    assertThat(api.statusWrites.get(api.statusWrites.size() - 1).getMetadata().getResourceVersion()).isEqualTo("3");
    assertThat(api.gets).isEmpty();
  }

  @Test
  void twoFailedStatusWritesFailTheSync() {
    add(replicaSet("web", 0).build());
    api.failNextStatusWrite(FakePodControl.apiError(409, "conflict one"));
    api.failNextStatusWrite(FakePodControl.apiError(409, "conflict two"));
    assertThatThrownBy(() -> sync.sync("default/web")).hasMessageContaining("conflict two");
    assertThat(api.statusWrites).hasSize(2);
  }

  @Test
  void podsBecomeAvailableAfterMinReadySecondsOnTheInjectedClockAndTheSyncRequeuesUntilThen() throws Exception {
    ReplicaSet rs = replicaSet("web", 2).editSpec().withMinReadySeconds(10).endSpec().build();
    add(rs);
    addPods(ownedPod("p1", rs).runningReady("n1", T0).build(), ownedPod("p2", rs).runningReady("n1", T0).build());
    clock.advance(Duration.ofSeconds(1));
    sync.sync("default/web");
    assertThat(lastStatus().getReadyReplicas()).isEqualTo(2);
    assertThat(lastStatus().getAvailableReplicas()).isNull(); // zero, omitted as Go omits it
    assertThat(requeues).containsExactly(new Requeue("default/web", Duration.ofSeconds(10)));
    observeStatusWrite();
    clock.advance(Duration.ofSeconds(10));
    sync.sync("default/web");
    assertThat(lastStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(requeues).hasSize(1);
  }

  @Test
  void aMatchingOrphanIsAdoptedAfterALiveGetOfTheOwner() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(pod("orphan").labels(Map.of("app", "web")).build());
    sync.sync("default/web");
    assertThat(api.gets).containsExactly("default/web");
    assertThat(podControl.patches).singleElement().satisfies(p -> {
      assertThat(p.name()).isEqualTo("orphan");
      assertThat(p.body()).contains("\"controller\":true").contains("\"uid\":\"uid-web\"");
    });
    assertThat(podControl.creates).as("the adopted pod counts").isEmpty();
    assertThat(lastStatus().getReplicas()).isEqualTo(1);
  }

  @Test
  void noOrphanIsAdoptedByAReplicaSetTheServerSaysIsBeingDeleted() {
    add(replicaSet("web", 1).build());
    api.put(replicaSet("web", 1).editMetadata().withDeletionTimestamp("2025-06-01T12:00:00Z").endMetadata().build());
    addPods(pod("orphan").labels(Map.of("app", "web")).build());
    assertThatThrownBy(() -> sync.sync("default/web")).hasMessageContaining("has just been deleted");
    assertThat(podControl.patches).isEmpty();
    assertThat(podControl.creates).isEmpty();
  }

  @Test
  void anOwnedPodWhoseLabelsStoppedMatchingIsReleasedAndReplaced() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(ownedPod("strayed", rs).labels(Map.of("app", "debug")).build());
    sync.sync("default/web");
    assertThat(podControl.patches).singleElement().satisfies(p -> assertThat(p.body()).contains("\"$patch\":\"delete\""));
    assertThat(podControl.creates).hasSize(1);
  }

  @Test
  void aMatchingPodControlledByAnotherReplicaSetIsNeitherAdoptedNorCounted() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    ReplicaSet other = replicaSet("other", 1).build();
    add(rs);
    add(other);
    addPods(ownedPod("taken", other).labels(Map.of("app", "web")).build());
    sync.sync("default/web");
    assertThat(podControl.patches).isEmpty();
    assertThat(podControl.creates).as("the other controller's pod does not count").hasSize(1);
    assertThat(lastStatus().getReplicas()).isZero();
  }

  @Test
  void podsOfAnotherNamespaceAreNeverClaimedEvenIfTheyMatchOrNameTheReplicaSetsUid() throws Exception {
    ReplicaSet rs = replicaSet("web", 2).build();
    add(rs);
    addPods(pod("orphan-elsewhere").namespace("other").labels(Map.of("app", "web")).build(),
        ownedPod("stray-elsewhere", rs).namespace("other").build(),
        ownedPod("mine", rs).build());
    sync.sync("default/web");
    assertThat(podControl.patches).isEmpty();
    assertThat(podControl.creates).hasSize(1);
    assertThat(lastStatus().getReplicas()).isEqualTo(1);
  }

  @Test
  void anAdoptedOrphanAndAReleasedPodMoveInTheIndexSoTheNextSyncSeesThemAsTheInformerWould() throws Exception {
    ReplicaSet rs = replicaSet("web", 1).build();
    add(rs);
    addPods(pod("orphan").labels(Map.of("app", "web")).build());
    sync.sync("default/web");
    assertThat(podControl.patches).hasSize(1);
    // the informer delivers the adoption: the pod now carries the controllerRef
    addPods(ownedPod("orphan", rs).resourceVersion("2").build());
    sync.sync("default/web");
    assertThat(podControl.patches).as("an owned, matching pod is not patched again").hasSize(1);
    assertThat(podControl.creates).isEmpty();
    // relabelled away: released once, then an orphan that no longer matches, left alone
    addPods(ownedPod("orphan", rs).labels(Map.of("app", "debug")).resourceVersion("3").build());
    sync.sync("default/web");
    assertThat(podControl.patches).hasSize(2);
    assertThat(podControl.patches.get(1).body()).contains("\"$patch\":\"delete\"");
    addPods(pod("orphan").labels(Map.of("app", "debug")).resourceVersion("4").build());
    expectations.creationObserved("default/web");
    sync.sync("default/web");
    assertThat(podControl.patches).hasSize(2);
  }

  @Test
  void theSyncRefusesAPodIndexerWithoutThePodIndexes() {
    assertThatThrownBy(() -> new ReplicaSetSync(new Lister<>(rsStore), rsStore, ThreadSafeStore.withNamespaceIndex(),
        podControl, api, expectations, recorder, WallClock.anchored(clock, T0), pool, 500, (key, delay) -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("podControllerUID");
    ThreadSafeStore<Pod> uidOnly = new ThreadSafeStore<>(Map.of(
        ControllerIndexes.POD_CONTROLLER_UID_INDEX, ControllerIndexes.byPodControllerUid()));
    assertThatThrownBy(() -> new ReplicaSetSync(new Lister<>(rsStore), rsStore, uidOnly,
        podControl, api, expectations, recorder, WallClock.anchored(clock, T0), pool, 500, (key, delay) -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orphanPodLabels");
  }

  @Test
  void aDeletedReplicaSetForgetsItsExpectations() throws Exception {
    expectations.expectCreations("default/gone", 5);
    sync.sync("default/gone");
    assertThat(expectations.get("default/gone")).isEmpty();
  }
}
