package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** SharedIndexInformer semantics over a fake ListerWatcher and a manual clock. */
class SharedIndexInformerTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final FakeListerWatcher<Pod> lw = new FakeListerWatcher<>();
  private final FakeClock clock = new FakeClock();
  private DefaultSharedIndexInformer<Pod> informer;

  private DefaultSharedIndexInformer<Pod> informer(Duration defaultResync) {
    informer = new DefaultSharedIndexInformer<>(lw, defaultResync, clock, () -> 0.0);
    return informer;
  }

  @AfterEach
  void tearDown() {
    if (informer != null) {
      informer.stop();
    }
  }

  /** Starts with pods a@5 and b@6 listed at 10, waits for sync, returns the open watch. */
  private FakeListerWatcher.FakeWatchStream<Pod> startSynced(RecordingHandler handler) throws Exception {
    lw.setContent(List.of(pod("ns", "a", "5", "node-1"), pod("ns", "b", "6", "node-2")), "10");
    if (informer == null) {
      informer(Duration.ZERO);
    }
    ResourceEventHandlerRegistration registration = informer.addEventHandler(handler);
    informer.start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    assertThat(handler.next(2)).containsExactly("add a@5 initial", "add b@6 initial");
    await().atMost(WAIT).until(registration::hasSynced);
    return lw.nextWatch();
  }

  @Test
  void initialListFillsTheCacheAndReachesHandlersAsInitialAdds() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    assertThat(informer(Duration.ZERO).hasSynced()).isFalse();
    startSynced(handler);
    assertThat(informer.hasSynced()).isTrue();
    assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/b");
    assertThat(informer.lastSyncResourceVersion()).isEqualTo("10");
    await().atMost(WAIT).until(informer::isWatching);
  }

  @Test
  void watchEventsReachHandlersInOrder() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "c", "12"));
    watch.emit(WatchEvent.Type.DELETED, pod("ns", "c", "13"));
    assertThat(handler.next(3)).containsExactly("add c@11", "update c@11->c@12", "delete c@13");
    assertThat(informer.getStore().getByKey("ns/c")).isEmpty();
  }

  @Test
  void cacheIsUpdatedBeforeHandlersAreNotified() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(new RecordingHandler());
    // Each notification must find the cache at least as new as itself (later states may follow).
    List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
    informer.addEventHandler(new ResourceEventHandler<Pod>() {
      private void check(Pod notified) {
        long cached = informer.getStore().get(notified)
            .map(p -> Long.parseLong(p.getMetadata().getResourceVersion())).orElse(-1L);
        if (cached < Long.parseLong(notified.getMetadata().getResourceVersion())) {
          violations.add(RecordingHandler.name(notified) + " but cache has " + cached);
        }
        seen.incrementAndGet();
      }

      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        check(obj);
      }

      @Override
      public void onUpdate(Pod oldObj, Pod newObj) {
        check(newObj);
      }
    });
    for (int i = 0; i < 200; i++) {
      watch.emit(i % 2 == 0 ? WatchEvent.Type.ADDED : WatchEvent.Type.MODIFIED, pod("ns", "p" + (i / 2), Integer.toString(100 + i)));
    }
    await().atMost(WAIT).until(() -> seen.get() == 2 + 200);
    assertThat(violations).isEmpty();
  }

  @Test
  void addedForAKeyAlreadyCachedBecomesAnUpdate() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "a", "7"));
    assertThat(handler.next()).isEqualTo("update a@5->a@7");
  }

  @Test
  void updateWithUnchangedResourceVersionReachesNoHandlerWithoutResync() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    // the CRUD mock replays every object as ADDED on a new watch
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "a", "5"));
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "b", "6"));
    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "b", "9"));
    assertThat(handler.next()).isEqualTo("update b@6->b@9");
    assertThat(informer.getStore().getByKey("ns/a").orElseThrow().getMetadata().getResourceVersion()).isEqualTo("5");
  }

  @Test
  void resyncReachesOnlyHandlersThatAskedForIt() throws Exception {
    informer(Duration.ZERO);
    RecordingHandler resyncing = new RecordingHandler();
    informer.addEventHandler(resyncing, Duration.ofMinutes(1));
    RecordingHandler quiet = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(quiet);
    assertThat(resyncing.next(2)).containsExactly("add a@5 initial", "add b@6 initial");

    await().atMost(WAIT).until(() -> clock.sleepers() == 1); // the resync timer
    clock.advance(Duration.ofMinutes(1));
    List<String> resynced = resyncing.next(2);
    assertThat(resynced).containsExactlyInAnyOrder("update a@5->a@5", "update b@6->b@6");

    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "a", "8"));
    assertThat(quiet.next()).isEqualTo("update a@5->a@8"); // no resync notification before it
    assertThat(resyncing.next()).isEqualTo("update a@5->a@8");
  }

  @Test
  void deletionMissedWhileDisconnectedArrivesAsTombstoneAfterRelist() throws Exception {
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    lw.setContent(List.of(pod("ns", "a", "5", "node-1"), pod("ns", "c", "20")), "20");
    watch.error(FakeListerWatcher.status(410, "Expired"));
    await().atMost(WAIT).until(() -> clock.sleepers() == 1);
    clock.advance(Duration.ofMinutes(1));
    List<String> events = handler.next(2);
    assertThat(events).containsExactlyInAnyOrder("add c@20", "delete b@6 unknown");
    assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("ns/a", "ns/c");
    assertThat(lw.listRequests()).extracting(ListRequest::resourceVersion).containsExactly("0", "");
  }

  @Test
  void handlerAddedAfterStartFirstGetsTheCacheAsInitialListAndSyncsOnItsOwn() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(new RecordingHandler());
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    await().atMost(WAIT).until(() -> informer.getStore().getByKey("ns/c").isPresent());

    CountDownLatch gate = new CountDownLatch(1);
    RecordingHandler late = new RecordingHandler(gate);
    ResourceEventHandlerRegistration registration = informer.addEventHandler(late);
    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "c", "12"));
    assertThat(informer.hasSynced()).isTrue();
    assertThat(registration.hasSynced()).isFalse();
    gate.countDown();
    List<String> initial = late.next(3);
    assertThat(initial).containsExactlyInAnyOrder("add a@5 initial", "add b@6 initial", "add c@11 initial");
    assertThat(late.next()).isEqualTo("update c@11->c@12");
    await().atMost(WAIT).until(registration::hasSynced);
  }

  @Test
  void slowHandlerBlocksNeitherOtherHandlersNorTheCache() throws Exception {
    RecordingHandler fast = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(fast);
    CountDownLatch gate = new CountDownLatch(1);
    RecordingHandler slow = new RecordingHandler(gate);
    informer.addEventHandler(slow);
    int n = 2_000;
    for (int i = 0; i < n; i++) {
      watch.emit(WatchEvent.Type.ADDED, pod("ns", "p" + i, Integer.toString(100 + i)));
    }
    assertThat(fast.next(n)).hasSize(n);
    await().atMost(WAIT).until(() -> informer.getStore().listKeys().size() == n + 2);
    assertThat(slow.events).isEmpty();
    gate.countDown();
    assertThat(slow.next(n + 2)).hasSize(n + 2);
  }

  @Test
  void removedHandlerGetsNoFurtherNotifications() throws Exception {
    RecordingHandler kept = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(kept);
    RecordingHandler removed = new RecordingHandler();
    ResourceEventHandlerRegistration registration = informer.addEventHandler(removed);
    assertThat(removed.next(2)).hasSize(2);
    informer.removeEventHandler(registration);
    informer.removeEventHandler(registration); // idempotent
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    assertThat(kept.next()).isEqualTo("add c@11");
    assertThat(removed.events).isEmpty();
  }

  @Test
  void transformRunsOnceBeforeTheObjectEntersTheCache() throws Exception {
    informer(Duration.ZERO).setTransform(pod -> {
      pod.getMetadata().setManagedFields(null); // in place: the object is not shared yet
      return pod;
    });
    Pod heavy = new PodBuilder(pod("ns", "c", "11"))
        .editMetadata().withManagedFields(new ManagedFieldsEntry()).endMetadata().build();
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    watch.emit(WatchEvent.Type.ADDED, heavy);
    assertThat(handler.next()).isEqualTo("add c@11");
    Pod cached = informer.getStore().getByKey("ns/c").orElseThrow();
    assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(cached).isSameAs(heavy); // no copy was kept
    assertThat(handler.objects).contains(cached);
  }

  @Test
  void customIndexesAreMaintainedByTheInformer() throws Exception {
    informer(Duration.ZERO).addIndexers(Map.of("byNode", p -> List.of(Pods.nodeName(p))));
    RecordingHandler handler = new RecordingHandler();
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(handler);
    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "a", "7", "node-2"));
    handler.next();
    Lister<Pod> lister = new Lister<>(informer.getIndexer());
    assertThat(lister.byIndex("byNode", "node-1")).isEmpty();
    assertThat(lister.byIndex("byNode", "node-2")).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(lister.list("ns")).hasSize(2);
    assertThat(lister.get("ns", "a")).isPresent();
  }

  @Test
  void configurationIsFrozenOnceStarted() throws Exception {
    startSynced(new RecordingHandler());
    assertThatThrownBy(() -> informer.addIndexers(Map.of("late", p -> List.of())))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> informer.setTransform(p -> p)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void stopEndsTheWatchAndRefusesNewHandlers() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = startSynced(new RecordingHandler());
    informer.stop();
    await().atMost(WAIT).until(watch::closedByClient);
    assertThat(informer.isStopped()).isTrue();
    assertThat(informer.isWatching()).isFalse();
    assertThatThrownBy(() -> informer.addEventHandler(new RecordingHandler()))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(informer::start).isInstanceOf(IllegalStateException.class);
    assertThat(informer.awaitSynced(Duration.ofMillis(10))).isTrue(); // it had synced
  }

  @Test
  void awaitSyncedBeforeStartWaitsForTheStart() throws Exception {
    lw.setContent(List.of(pod("ns", "a", "1")), "3");
    informer(Duration.ZERO);
    assertThat(informer.awaitSynced(Duration.ofMillis(20))).isFalse();
    Thread starter = new Thread(informer::start);
    starter.start();
    assertThat(informer.awaitSynced(WAIT)).isTrue();
    starter.join();
  }

  @Test
  void resyncPeriodsBelowTheMinimumAreRaised() {
    informer(Duration.ZERO);
    informer.addEventHandler(new RecordingHandler(), Duration.ofMillis(10));
    ProcessorListener<Pod> listener = informer.processor().listeners().get(0);
    assertThat(listener.requestedResyncPeriod).isEqualTo(SharedIndexInformer.MINIMUM_RESYNC_PERIOD);
  }
}
