package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeltaFIFOTest {

  private final ThreadSafeStore<Pod> known = ThreadSafeStore.withNamespaceIndex();

  /** Pops one key, recording whether it was part of the initial list. */
  private static Deltas<Pod> pop(DeltaFIFO<Pod> fifo, List<Boolean> initialFlags) throws InterruptedException {
    return fifo.pop((d, initial) -> initialFlags.add(initial)).orElseThrow();
  }

  private static Deltas<Pod> pop(DeltaFIFO<Pod> fifo) throws InterruptedException {
    return fifo.pop((d, initial) -> {}).orElseThrow();
  }

  private static List<DeltaType> types(Deltas<Pod> deltas) {
    return deltas.deltas().stream().map(Delta::type).toList();
  }

  private static List<String> versions(Deltas<Pod> deltas) {
    return deltas.deltas().stream().map(d -> d.object().getMetadata().getResourceVersion()).toList();
  }

  @Test
  void changesToOneKeyAccumulateInOrder() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.update(pod("ns", "a", "2"));
    fifo.update(pod("ns", "a", "3"));
    assertThat(fifo.listKeys()).containsExactly("ns/a");
    Deltas<Pod> deltas = pop(fifo);
    assertThat(deltas.key()).isEqualTo("ns/a");
    assertThat(types(deltas)).containsExactly(DeltaType.ADDED, DeltaType.UPDATED, DeltaType.UPDATED);
    assertThat(versions(deltas)).containsExactly("1", "2", "3");
    assertThat(fifo.size()).isZero();
  }

  @Test
  void keysPopInTheOrderTheyWereFirstQueued() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.add(pod("ns", "b", "1"));
    fifo.update(pod("ns", "a", "2"));
    fifo.add(pod("ns", "c", "1"));
    assertThat(pop(fifo).key()).isEqualTo("ns/a");
    assertThat(pop(fifo).key()).isEqualTo("ns/b");
    assertThat(pop(fifo).key()).isEqualTo("ns/c");
  }

  @Test
  void consecutiveDeletesCollapseIntoOne() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.delete(pod("ns", "a", "2"));
    fifo.delete(pod("ns", "a", "3"));
    Deltas<Pod> deltas = pop(fifo);
    assertThat(types(deltas)).containsExactly(DeltaType.ADDED, DeltaType.DELETED);
    // the older deletion is kept when it knows the final state
    assertThat(versions(deltas)).containsExactly("1", "2");
  }

  @Test
  void knownFinalStateDeletionReplacesPrecedingTombstone() throws Exception {
    known.add(pod("ns", "a", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.replace(List.of(), "5"); // a is missing: tombstone
    fifo.delete(pod("ns", "a", "4")); // the watch's real deletion arrives after all
    Deltas<Pod> deltas = pop(fifo);
    assertThat(deltas.deltas()).hasSize(1);
    assertThat(deltas.newest().finalStateUnknown()).isFalse();
    assertThat(versions(deltas)).containsExactly("4");
  }

  @Test
  void tombstoneAfterKnownDeletionIsDropped() throws Exception {
    known.add(pod("ns", "a", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.delete(pod("ns", "a", "4"));
    fifo.replace(List.of(), "5");
    Deltas<Pod> deltas = pop(fifo);
    assertThat(deltas.deltas()).containsExactly(Delta.of(DeltaType.DELETED, pod("ns", "a", "4")));
  }

  @Test
  void deleteOfUnknownKeyIsIgnored() {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.delete(pod("ns", "ghost", "1"));
    assertThat(fifo.listKeys()).isEmpty();

    DeltaFIFO<Pod> withoutKnown = new DeltaFIFO<>();
    withoutKnown.delete(pod("ns", "ghost", "1"));
    assertThat(withoutKnown.listKeys()).isEmpty();
  }

  @Test
  void deleteOfKnownKeyIsQueued() throws Exception {
    known.add(pod("ns", "a", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.delete(pod("ns", "a", "2"));
    Deltas<Pod> deltas = pop(fifo);
    assertThat(types(deltas)).containsExactly(DeltaType.DELETED);
    assertThat(deltas.tombstone()).isEmpty();
  }

  @Test
  void replaceQueuesReplacedForEveryListedObject() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "2")), "2");
    assertThat(types(pop(fifo))).containsExactly(DeltaType.REPLACED);
    assertThat(types(pop(fifo))).containsExactly(DeltaType.REPLACED);
  }

  @Test
  void replaceTombstonesKnownKeysAbsentFromTheList() throws Exception {
    Pod lastKnown = pod("ns", "gone", "3");
    known.add(lastKnown);
    known.add(pod("ns", "kept", "3"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.replace(List.of(pod("ns", "kept", "4")), "9");
    Deltas<Pod> kept = pop(fifo);
    assertThat(kept.key()).isEqualTo("ns/kept");
    assertThat(types(kept)).containsExactly(DeltaType.REPLACED);
    Deltas<Pod> gone = pop(fifo);
    assertThat(gone.newest()).isEqualTo(Delta.tombstone(lastKnown));
    assertThat(gone.newest().object()).isSameAs(lastKnown);
    assertThat(gone.tombstone()).contains(new DeletedFinalStateUnknown<>("ns/gone", lastKnown));
  }

  @Test
  void replaceTombstonesQueuedKeysAbsentFromTheListWithTheirNewestState() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.add(pod("ns", "a", "1"));
    fifo.update(pod("ns", "a", "2"));
    fifo.replace(List.of(), "9");
    Deltas<Pod> deltas = pop(fifo);
    assertThat(types(deltas)).containsExactly(DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED);
    assertThat(deltas.newest().finalStateUnknown()).isTrue();
    assertThat(deltas.newest().object().getMetadata().getResourceVersion()).isEqualTo("2");
  }

  @Test
  void secondReplaceDoesNotDuplicateATombstone() throws Exception {
    known.add(pod("ns", "a", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.replace(List.of(), "5");
    fifo.replace(List.of(), "6");
    Deltas<Pod> deltas = pop(fifo);
    assertThat(deltas.deltas()).containsExactly(Delta.tombstone(pod("ns", "a", "1")));
  }

  @Test
  void hasSyncedOnceTheFirstReplaceIsFullyPopped() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    assertThat(fifo.hasSynced()).isFalse();
    fifo.replace(List.of(pod("ns", "a", "1"), pod("ns", "b", "1")), "1");
    assertThat(fifo.hasSynced()).isFalse();
    List<Boolean> initialFlags = new ArrayList<>();
    pop(fifo, initialFlags);
    assertThat(fifo.hasSynced()).isFalse();
    fifo.add(pod("ns", "c", "2")); // arrives while the initial list is being popped
    pop(fifo, initialFlags);
    assertThat(fifo.hasSynced()).isTrue();
    pop(fifo, initialFlags);
    assertThat(initialFlags).containsExactly(true, true, false);
  }

  @Test
  void emptyFirstReplaceSyncsAtOnce() {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.replace(List.of(), "1");
    assertThat(fifo.hasSynced()).isTrue();
  }

  @Test
  void addBeforeAnyReplaceCountsAsSynced() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    assertThat(fifo.hasSynced()).isTrue();
    fifo.replace(List.of(pod("ns", "b", "1")), "2");
    List<Boolean> flags = new ArrayList<>();
    pop(fifo, flags);
    pop(fifo, flags);
    assertThat(flags).containsExactly(false, false);
  }

  @Test
  void awaitSyncedWakesWhenTheLastInitialItemIsPopped() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.replace(List.of(pod("ns", "a", "1")), "1");
    assertThat(fifo.awaitSynced(Duration.ofMillis(1))).isFalse();
    CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
      try {
        return fifo.awaitSynced(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    pop(fifo);
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void resyncQueuesSyncForKnownKeysNotAlreadyQueued() throws Exception {
    Pod a = pod("ns", "a", "1");
    known.add(a);
    known.add(pod("ns", "b", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, null);
    fifo.update(pod("ns", "b", "2"));
    fifo.resync();
    Deltas<Pod> b = pop(fifo);
    assertThat(types(b)).containsExactly(DeltaType.UPDATED);
    Deltas<Pod> resynced = pop(fifo);
    assertThat(resynced.deltas()).containsExactly(Delta.of(DeltaType.SYNC, a));
    assertThat(resynced.newest().object()).isSameAs(a);
  }

  @Test
  void resyncWithoutKnownObjectsDoesNothing() {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.resync();
    assertThat(fifo.size()).isZero();
  }

  @Test
  void popBlocksUntilSomethingIsQueued() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    CompletableFuture<Optional<Deltas<Pod>>> popped = CompletableFuture.supplyAsync(() -> {
      try {
        return fifo.pop((d, i) -> {});
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(popped).isNotDone();
    fifo.add(pod("ns", "a", "1"));
    assertThat(popped.get(10, TimeUnit.SECONDS).orElseThrow().key()).isEqualTo("ns/a");
  }

  @Test
  void closeDrainsRemainingKeysThenReleasesPop() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.close();
    assertThat(fifo.isClosed()).isTrue();
    assertThat(fifo.pop((d, i) -> {})).isPresent();
    assertThat(fifo.pop((d, i) -> {})).isEmpty();
  }

  @Test
  void closeWakesABlockedPop() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    CompletableFuture<Optional<Deltas<Pod>>> popped = CompletableFuture.supplyAsync(() -> {
      try {
        return fifo.pop((d, i) -> {});
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> !popped.isDone());
    fifo.close();
    assertThat(popped.get(10, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void processRunsUnderTheQueueLockWithTheWholeDeltaList() throws Exception {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.update(pod("ns", "a", "2"));
    List<Integer> seen = new ArrayList<>();
    fifo.pop((d, i) -> {
      seen.add(d.deltas().size());
      // a producer on another thread must wait for the process function
      CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> fifo.add(pod("ns", "b", "1")));
      assertThatThrownBy(() -> producer.get(100, TimeUnit.MILLISECONDS))
          .isInstanceOf(java.util.concurrent.TimeoutException.class);
    });
    assertThat(seen).containsExactly(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> fifo.size() == 1);
  }

  @Test
  void processFailureDropsTheKeyAndPropagates() {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    assertThatThrownBy(() -> fifo.pop((d, i) -> {
      throw new IllegalStateException("boom");
    })).hasMessage("boom");
    assertThat(fifo.size()).isZero();
  }

  @Test
  void transformRunsOnceOnServerObjectsButNotOnTombstonesOrResyncs() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    known.add(pod("ns", "old", "1"));
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>(known, p -> {
      calls.incrementAndGet();
      return new PodBuilder(p).editMetadata().addToLabels("transformed", "yes").endMetadata().build();
    });
    fifo.add(pod("ns", "a", "1"));
    fifo.replace(List.of(pod("ns", "b", "1")), "2"); // "old" gets a tombstone, "a" too
    assertThat(calls).hasValue(2);
    Deltas<Pod> a = pop(fifo);
    assertThat(a.oldest().object().getMetadata().getLabels()).containsEntry("transformed", "yes");
    assertThat(a.newest().finalStateUnknown()).isTrue();
    assertThat(pop(fifo).newest().object().getMetadata().getLabels()).containsEntry("transformed", "yes");
    fifo.resync();
    assertThat(calls).hasValue(2);
  }

  @Test
  void listAndGetByKeyShowQueuedState() {
    DeltaFIFO<Pod> fifo = new DeltaFIFO<>();
    fifo.add(pod("ns", "a", "1"));
    fifo.update(pod("ns", "a", "2"));
    assertThat(fifo.list()).extracting(p -> p.getMetadata().getResourceVersion()).containsExactly("2");
    assertThat(fifo.getByKey("ns/a").orElseThrow().deltas()).hasSize(2);
    assertThat(fifo.getByKey("ns/b")).isEmpty();
  }
}
