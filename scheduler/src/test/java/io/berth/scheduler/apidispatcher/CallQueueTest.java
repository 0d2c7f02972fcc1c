package io.berth.scheduler.apidispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ApiCacher.Outcome;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The call queue's reconciliation, ordering and lifecycle, translated from upstream's
 * {@code call_queue_test.go} (add, pop, finalize, syncObject, close), plus the cases Berth
 * settles differently: a running call keeps its own outcome, and a call waiting behind a running
 * one is never skipped as a no-op.
 */
class CallQueueTest {
  private final CallQueue queue = new CallQueue(MockCall.RELEVANCES);

  private static QueuedCall queued(MockCall call) {
    return new QueuedCall(call);
  }

  private static Pod pod(String uid) {
    return new PodBuilder().withNewMetadata().withUid(uid).withName("p").withNamespace("ns")
        .endMetadata().build();
  }

  private QueuedCall popNow() throws InterruptedException {
    return queue.pop().orElseThrow();
  }

  @Test
  void aFirstCallIsQueued() {
    QueuedCall c = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(c);

    assertThat(c.completion).isNotDone();
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);
    assertThat(queue.size()).isEqualTo(1);
  }

  @Test
  void aNoOpCallIsSkipped() {
    QueuedCall c = queued(new MockCall(MockCall.LOW, "uid1").noOp(() -> true));
    queue.add(c);

    assertThat(c.completion).isCompletedWithValue(Outcome.SKIPPED);
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
    assertThat(queue.size()).isZero();
  }

  @Test
  void callsForDifferentObjectsDoNotCollide() {
    queue.add(queued(new MockCall(MockCall.LOW, "uid1")));
    queue.add(queued(new MockCall(MockCall.HIGH, "uid2")));

    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);
    assertThat(queue.pendingCount(MockCall.HIGH)).isEqualTo(1);
    assertThat(queue.size()).isEqualTo(2);
  }

  @Test
  void aMoreRelevantCallOverwritesAPendingOne() throws Exception {
    QueuedCall low = queued(new MockCall(MockCall.LOW, "uid1"));
    QueuedCall high = queued(new MockCall(MockCall.HIGH, "uid1"));
    queue.add(low);
    queue.add(high);

    assertThat(low.completion).isCompletedWithValue(Outcome.OVERWRITTEN);
    assertThat(((MockCall) high.call).merges).hasValue(0);
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
    assertThat(queue.pendingCount(MockCall.HIGH)).isEqualTo(1);
    assertThat(popNow()).isSameAs(high);
  }

  @Test
  void aLessRelevantCallIsSkipped() throws Exception {
    QueuedCall high = queued(new MockCall(MockCall.HIGH, "uid1"));
    QueuedCall low = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(high);
    queue.add(low);

    assertThat(low.completion).isCompletedWithValue(Outcome.SKIPPED);
    assertThat(high.completion).isNotDone();
    assertThat(queue.pendingCount(MockCall.HIGH)).isEqualTo(1);
    assertThat(popNow()).isSameAs(high);
  }

  @Test
  void aLessRelevantCallIsSkippedWhileTheMoreRelevantOneRuns() throws Exception {
    QueuedCall high = queued(new MockCall(MockCall.HIGH, "uid1"));
    queue.add(high);
    assertThat(popNow()).isSameAs(high);
    QueuedCall low = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(low);

    assertThat(low.completion).isCompletedWithValue(Outcome.SKIPPED);
    queue.finalize(high);
    assertThat(queue.size()).isZero();
  }

  @Test
  void aCallOfTheSameTypeMergesThePendingOneAndAMergeThatMakesANoOpSkipsBoth() {
    MockCall m1 = new MockCall(MockCall.LOW, "uid1");
    MockCall m2 = new MockCall(MockCall.LOW, "uid1");
    AtomicBoolean merged3 = new AtomicBoolean();
    MockCall m3 = new MockCall(MockCall.LOW, "uid1").noOp(merged3::get);
    m3.onMerge = older -> merged3.set(true);
    QueuedCall c1 = queued(m1);
    QueuedCall c2 = queued(m2);
    QueuedCall c3 = queued(m3);

    queue.add(c1);
    queue.add(c2);
    assertThat(m2.merges).hasValue(1);
    assertThat(c1.completion).isCompletedWithValue(Outcome.OVERWRITTEN);
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);

    queue.add(c3);
    assertThat(c2.completion).isCompletedWithValue(Outcome.OVERWRITTEN);
    assertThat(c3.completion).isCompletedWithValue(Outcome.SKIPPED);
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
    assertThat(queue.size()).isZero();
  }

  @Test
  void aFailingMergeFailsTheNewCallAndKeepsThePendingOne() throws Exception {
    MockCall m2 = new MockCall(MockCall.LOW, "uid1");
    m2.onMerge = older -> {
      throw new IllegalArgumentException("cannot merge");
    };
    QueuedCall c1 = queued(new MockCall(MockCall.LOW, "uid1"));
    QueuedCall c2 = queued(m2);
    queue.add(c1);
    queue.add(c2);

    assertThat(c2.completion).isCompletedExceptionally();
    assertThat(c1.completion).isNotDone();
    assertThat(popNow()).isSameAs(c1);
  }

  @Test
  void callsArePoppedInFifoOrderOfTheirObjects() throws Exception {
    QueuedCall c1 = queued(new MockCall(MockCall.LOW, "uid1"));
    QueuedCall c2 = queued(new MockCall(MockCall.LOW, "uid2"));
    queue.add(c1);
    queue.add(c2);
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(2);

    assertThat(popNow()).isSameAs(c1);
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);
    assertThat(queue.isRunning("uid1")).isTrue();
    assertThat(popNow()).isSameAs(c2);
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
    assertThat(queue.isRunning("uid2")).isTrue();
    assertThat(queue.size()).isEqualTo(2);
  }

  @Test
  void aReplacedCallKeepsItsObjectsPlaceInLine() throws Exception {
    queue.add(queued(new MockCall(MockCall.LOW, "uid1")));
    queue.add(queued(new MockCall(MockCall.LOW, "uid2")));
    QueuedCall newer = queued(new MockCall(MockCall.HIGH, "uid1"));
    queue.add(newer);

    assertThat(popNow()).isSameAs(newer);
    assertThat(popNow().call.uid()).isEqualTo("uid2");
  }

  @Test
  void popBlocksWhileEmptyAndWakesOnAdd() throws Exception {
    CompletableFuture<QueuedCall> popped = CompletableFuture.supplyAsync(() -> {
      try {
        return queue.pop().orElse(null);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(50);
    assertThat(popped).isNotDone();

    QueuedCall c = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(c);
    assertThat(popped.get(5, TimeUnit.SECONDS)).isSameAs(c);
  }

  @Test
  void finalizeForgetsTheObjectWhenNoCallArrivedMeanwhile() throws Exception {
    QueuedCall c = queued(new MockCall(MockCall.LOW, "uid"));
    queue.add(c);
    queue.finalize(popNow());

    assertThat(queue.size()).isZero();
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
    assertThat(queue.isRunning("uid")).isFalse();
  }

  @Test
  void aCallAddedWhileItsObjectRunsWaitsAndIsQueuedOnFinalize() throws Exception {
    QueuedCall c1 = queued(new MockCall(MockCall.LOW, "uid"));
    queue.add(c1);
    QueuedCall running = popNow();
    MockCall m2 = new MockCall(MockCall.LOW, "uid").noOp(() -> true);
    QueuedCall c2 = queued(m2);
    queue.add(c2);

    assertThat(m2.merges).as("merged with the running call").hasValue(1);
    assertThat(m2.afterRunning).isTrue();
    assertThat(c2.completion).as("not skipped: the running call may change what it knows")
        .isNotDone();
    assertThat(c1.completion).as("a running call keeps its own outcome").isNotDone();
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();

    queue.finalize(running);
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);
    assertThat(queue.isRunning("uid")).isFalse();
    assertThat(popNow()).isSameAs(c2);
  }

  @Test
  void aCallReplacingOneThatWaitsBehindARunningCallOverwritesItAndStillWaits() throws Exception {
    queue.add(queued(new MockCall(MockCall.LOW, "uid")));
    QueuedCall running = popNow();
    QueuedCall waiting = queued(new MockCall(MockCall.LOW, "uid"));
    queue.add(waiting);
    MockCall m3 = new MockCall(MockCall.HIGH, "uid");
    QueuedCall c3 = queued(m3);
    queue.add(c3);

    assertThat(waiting.completion).isCompletedWithValue(Outcome.OVERWRITTEN);
    assertThat(m3.afterRunning).isTrue();
    assertThat(queue.pendingCount(MockCall.HIGH)).isZero();
    queue.finalize(running);
    assertThat(popNow()).isSameAs(c3);
  }

  @Test
  void syncUpdatesThePendingCallAndReturnsItsPod() {
    MockCall m = new MockCall(MockCall.LOW, "uid1");
    m.onSync = p -> new PodBuilder(p).editMetadata().addToAnnotations("synced", "true")
        .endMetadata().build();
    QueuedCall c = queued(m);
    queue.add(c);

    Pod synced = queue.syncObject(pod("uid1"), "uid1");

    assertThat(synced.getMetadata().getAnnotations()).containsEntry("synced", "true");
    assertThat(m.syncs).hasValue(1);
    assertThat(c.completion).isNotDone();
    assertThat(queue.pendingCount(MockCall.LOW)).isEqualTo(1);
  }

  @Test
  void aPendingCallThatSyncMakesANoOpIsDropped() {
    AtomicBoolean synced = new AtomicBoolean();
    MockCall m = new MockCall(MockCall.LOW, "uid1").noOp(synced::get);
    m.onSync = p -> {
      synced.set(true);
      return p;
    };
    QueuedCall c = queued(m);
    queue.add(c);

    queue.syncObject(pod("uid1"), "uid1");

    assertThat(c.completion).isCompletedWithValue(Outcome.SKIPPED);
    assertThat(queue.size()).isZero();
    assertThat(queue.pendingCount(MockCall.LOW)).isZero();
  }

  @Test
  void aRunningCallIsNotDroppedBySync() throws Exception {
    MockCall m = new MockCall(MockCall.LOW, "uid1");
    QueuedCall c = queued(m);
    queue.add(c);
    popNow();
    m.noOp = () -> true;

    queue.syncObject(pod("uid1"), "uid1");

    assertThat(c.completion).isNotDone();
    assertThat(queue.size()).isEqualTo(1);
  }

  @Test
  void anObjectWithoutACallIsReturnedAsItIs() {
    MockCall m = new MockCall(MockCall.LOW, "uid1");
    queue.add(queued(m));
    Pod other = pod("uid2");

    assertThat(queue.syncObject(other, "uid2")).isSameAs(other);
    assertThat(m.syncs).hasValue(0);
  }

  @Test
  void popAnswersEmptyOnceClosedAndDrained() throws Exception {
    QueuedCall c = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(c);
    queue.close();

    assertThat(queue.pop()).as("what was queued before close still runs").containsSame(c);
    assertThat(queue.pop()).isEmpty();
  }

  @Test
  void closeWakesABlockedPop() throws Exception {
    CompletableFuture<Boolean> empty = CompletableFuture.supplyAsync(() -> {
      try {
        return queue.pop().isEmpty();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(50);
    queue.close();

    assertThat(empty.get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aCallAddedAfterCloseFailsAndAbandonedCallsFail() throws Exception {
    QueuedCall pending = queued(new MockCall(MockCall.LOW, "uid1"));
    queue.add(pending);
    queue.close();
    QueuedCall late = queued(new MockCall(MockCall.LOW, "uid2"));
    queue.add(late);

    assertThat(late.completion).isCompletedExceptionally();
    assertThat(queue.abandonPending()).isEqualTo(1);
    assertThat(pending.completion).isCompletedExceptionally();
    assertThat(queue.pop()).isEmpty();
  }

  @Test
  void aCallOfAnUnknownTypeIsRefusedNamingIt() {
    QueuedCall c = queued(new MockCall("pod_eviction", "uid1"));

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> queue.add(c))
        .hasMessageContaining("pod_eviction");
  }
}
