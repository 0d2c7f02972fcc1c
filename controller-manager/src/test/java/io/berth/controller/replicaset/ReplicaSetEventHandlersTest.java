package io.berth.controller.replicaset;

import static io.berth.controller.PodFixture.pod;
import static io.berth.controller.replicaset.ReplicaSetFixture.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.ControllerExpectations;
import io.berth.controller.GroupVersionKind;
import io.berth.controller.PodFixture;
import io.berth.informer.Lister;
import io.berth.informer.ThreadSafeStore;
import io.berth.workqueue.DelayingQueue;
import io.berth.workqueue.FakeClock;
import io.berth.workqueue.MetricsProvider;
import io.berth.workqueue.WorkQueues;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicaSetEventHandlersTest {

  private static final Instant T0 = Instant.parse("2025-06-01T12:00:00Z");

  private final FakeClock clock = new FakeClock();
  private final ThreadSafeStore<ReplicaSet> rsStore = ThreadSafeStore.withNamespaceIndex();
  private final ControllerExpectations expectations = new ControllerExpectations(clock);
  private final DelayingQueue<String> queue = WorkQueues.newDelayingQueue("", clock, MetricsProvider.NOOP);
  private final ReplicaSetEventHandlers handlers =
      new ReplicaSetEventHandlers(new Lister<>(rsStore), expectations, queue);
  private final ReplicaSet web = replicaSet("web", 2).build();

  @AfterEach
  void stop() {
    queue.shutDown();
  }

  /** Everything queued now, in order, each marked done. */
  private List<String> drain() throws InterruptedException {
    List<String> keys = new ArrayList<>();
    while (queue.len() > 0) {
      Optional<String> key = queue.get();
      key.ifPresent(keys::add);
      key.ifPresent(queue::done);
    }
    return keys;
  }

  private PodFixture owned(String name, ReplicaSet rs) {
    return pod(name).labels(Map.of("app", rs.getMetadata().getName())).controlledBy(rs, GroupVersionKind.REPLICA_SET);
  }

  @Test
  void anOwnedPodAppearingIsACreationObservedForItsReplicaSet() throws Exception {
    rsStore.add(web);
    expectations.expectCreations("default/web", 2);
    handlers.podHandler().onAdd(owned("p1", web).build(), false);
    assertThat(expectations.get("default/web").orElseThrow().add()).isEqualTo(1);
    assertThat(drain()).containsExactly("default/web");
  }

  @Test
  void aControllerRefToAReplicaSetOfAnotherUidIsIgnored() throws Exception {
    rsStore.add(web);
    expectations.expectCreations("default/web", 1);
    ReplicaSet previous = new ReplicaSetBuilder(web).editMetadata().withUid("old-uid").endMetadata().build();
    handlers.podHandler().onAdd(owned("p1", previous).build(), false);
    assertThat(expectations.satisfiedExpectations("default/web")).isFalse();
    assertThat(drain()).isEmpty();
  }

  @Test
  void anOrphanWakesEveryReplicaSetWhoseSelectorMatchesItWithoutObservingACreation() throws Exception {
    rsStore.add(web);
    rsStore.add(replicaSet("db", 1).build());
    rsStore.add(ReplicaSetFixture.mismatched("bad"));
    expectations.expectCreations("default/web", 1);
    handlers.podHandler().onAdd(pod("orphan").labels(Map.of("app", "web")).build(), false);
    assertThat(drain()).containsExactly("default/web");
    assertThat(expectations.satisfiedExpectations("default/web")).isFalse();
    handlers.podHandler().onAdd(pod("unlabelled").labels(Map.of()).build(), false);
    assertThat(drain()).isEmpty();
  }

  @Test
  void gracefulDeletionAndTheFinalDeleteAreObservedOnceBetweenThem() throws Exception {
    rsStore.add(web);
    Pod live = owned("p1", web).resourceVersion("1").build();
    Pod terminating = owned("p1", web).resourceVersion("2").deleting().build();
    expectations.expectDeletions("default/web", List.of("default/p1", "default/p2"));
    handlers.podHandler().onUpdate(live, terminating);
    handlers.podHandler().onDelete(terminating, false);
    assertThat(expectations.get("default/web").orElseThrow().del()).isEqualTo(1);
    assertThat(drain()).containsExactly("default/web");
  }

  @Test
  void aPodAlreadyTerminatingWhenFirstSeenIsADeletionNotACreation() {
    rsStore.add(web);
    expectations.setExpectations("default/web", 1, 0);
    expectations.expectDeletions("default/web", List.of("default/p1"));
    handlers.podHandler().onAdd(owned("p1", web).deleting().build(), true);
    assertThat(expectations.get("default/web").orElseThrow().del()).isZero();
  }

  @Test
  void anUpdateWithTheSameResourceVersionIsIgnored() throws Exception {
    rsStore.add(web);
    Pod p = owned("p1", web).build();
    handlers.podHandler().onUpdate(p, p);
    assertThat(drain()).isEmpty();
  }

  @Test
  void changingTheControllerRefWakesTheOldAndTheNewOwner() throws Exception {
    ReplicaSet other = replicaSet("other", 1).build();
    rsStore.add(web);
    rsStore.add(other);
    Pod before = owned("p1", web).resourceVersion("1").build();
    Pod after = pod("p1").labels(Map.of("app", "other")).controlledBy(other, GroupVersionKind.REPLICA_SET)
        .resourceVersion("2").build();
    handlers.podHandler().onUpdate(before, after);
    assertThat(drain()).containsExactly("default/web", "default/other");
  }

  @Test
  void anOrphanWhoseLabelsChangeWakesTheReplicaSetsThatNowMatch() throws Exception {
    rsStore.add(web);
    Pod before = pod("p1").labels(Map.of("app", "nothing")).resourceVersion("1").build();
    Pod after = pod("p1").labels(Map.of("app", "web")).resourceVersion("2").build();
    handlers.podHandler().onUpdate(before, after);
    assertThat(drain()).containsExactly("default/web");
    Pod statusOnly = pod("p1").labels(Map.of("app", "web")).resourceVersion("3").build();
    handlers.podHandler().onUpdate(after, statusOnly);
    assertThat(drain()).isEmpty();
  }

  @Test
  void aPodBecomingReadyRequeuesItsReplicaSetAfterMinReadySecondsPlusOne() throws Exception {
    ReplicaSet slow = replicaSet("slow", 1).editSpec().withMinReadySeconds(5).endSpec().build();
    rsStore.add(slow);
    Pod unready = owned("p1", slow).onNode("n1").phase("Running").notReady().resourceVersion("1").build();
    Pod ready = owned("p1", slow).runningReady("n1", T0).resourceVersion("2").build();
    handlers.podHandler().onUpdate(unready, ready);
    assertThat(drain()).containsExactly("default/slow");
    clock.advance(Duration.ofSeconds(5));
    assertThat(queue.len()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(queue.get()).contains("default/slow");
  }

  @Test
  void aDeletedOrRecreatedReplicaSetForgetsItsExpectations() throws Exception {
    rsStore.add(web);
    expectations.expectCreations("default/web", 3);
    ReplicaSet recreated = new ReplicaSetBuilder(web).editMetadata().withUid("new-uid").endMetadata().build();
    handlers.replicaSetHandler().onUpdate(web, recreated);
    assertThat(expectations.get("default/web")).isEmpty();
    expectations.expectCreations("default/web", 3);
    handlers.replicaSetHandler().onDelete(recreated, true);
    assertThat(expectations.get("default/web")).isEmpty();
    assertThat(drain()).containsExactly("default/web");
  }
}
