package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reflector logic against a fake ListerWatcher and a manual clock. */
class ReflectorTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final FakeListerWatcher<Pod> lw = new FakeListerWatcher<>();
  private final RecordingStore store = new RecordingStore();
  private final FakeClock clock = new FakeClock();
  private final AtomicBoolean shouldResync = new AtomicBoolean(true);
  private Reflector<Pod> reflector;
  private Thread thread;

  /** Records what the reflector does to its store. */
  static final class RecordingStore implements ReflectorStore<Pod> {
    final BlockingQueue<String> operations = new LinkedBlockingQueue<>();

    @Override
    public void add(Pod obj) {
      operations.add("add " + name(obj));
    }

    @Override
    public void update(Pod obj) {
      operations.add("update " + name(obj));
    }

    @Override
    public void delete(Pod obj) {
      operations.add("delete " + name(obj));
    }

    @Override
    public void replace(List<Pod> items, String resourceVersion) {
      operations.add("replace " + items.stream().map(RecordingStore::name).collect(Collectors.joining(","))
          + " @" + resourceVersion);
    }

    @Override
    public void resync() {
      operations.add("resync");
    }

    String next() throws InterruptedException {
      String op = operations.poll(10, TimeUnit.SECONDS);
      if (op == null) {
        throw new AssertionError("no store operation within 10 s");
      }
      return op;
    }

    private static String name(Pod pod) {
      return pod.getMetadata().getName() + "@" + pod.getMetadata().getResourceVersion();
    }
  }

  private void start(Duration resyncPeriod, DoubleSupplier random) {
    reflector = new Reflector<>(lw, store, resyncPeriod, shouldResync::get, clock, random);
    thread = new Thread(reflector::run, "reflector-under-test");
    thread.start();
  }

  private void start() {
    start(Duration.ZERO, () -> 0.0);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (reflector != null) {
      reflector.stop();
      thread.join(WAIT.toMillis());
      assertThat(thread.isAlive()).as("reflector thread ended").isFalse();
    }
  }

  /** Waits until the reflector (or its resync thread) is sleeping, then moves time past it. */
  private void advancePastBackoff(int expectedSleepers) {
    await().atMost(WAIT).until(() -> clock.sleepers() == expectedSleepers);
    clock.advance(Duration.ofMinutes(1));
  }

  private FakeListerWatcher.FakeWatchStream<Pod> listAndOpenWatch() throws InterruptedException {
    lw.setContent(List.of(pod("ns", "a", "5"), pod("ns", "b", "6")), "10");
    start();
    assertThat(store.next()).isEqualTo("replace a@5,b@6 @10");
    return lw.nextWatch();
  }

  @Test
  void firstListAsksForAnyCachedStateInPagesOf500() throws Exception {
    start();
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("0", 500, ""));
  }

  @Test
  void listReplacesTheStoreThenWatchesFromTheListResourceVersion() throws Exception {
    listAndOpenWatch();
    WatchRequest watch = lw.nextWatchRequest();
    assertThat(watch.resourceVersion()).isEqualTo("10");
    assertThat(reflector.lastSyncResourceVersion()).isEqualTo("10"); // set before the watch opens
    await().atMost(WAIT).until(reflector::isWatching);
  }

  @Test
  void watchTimeoutIsRandomBetweenFiveAndTenMinutes() throws Exception {
    start(Duration.ZERO, () -> 0.0);
    assertThat(lw.nextWatchRequest().timeoutSeconds()).isEqualTo(300);
    reflector.stop();
    thread.join();
    start(Duration.ZERO, () -> 0.9999);
    assertThat(lw.nextWatchRequest().timeoutSeconds()).isEqualTo(599);
  }

  @Test
  void watchEventsReachTheStoreAndAdvanceTheResourceVersion() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    watch.emit(WatchEvent.Type.MODIFIED, pod("ns", "a", "12"));
    watch.emit(WatchEvent.Type.DELETED, pod("ns", "b", "13"));
    assertThat(store.next()).isEqualTo("add c@11");
    assertThat(store.next()).isEqualTo("update a@12");
    assertThat(store.next()).isEqualTo("delete b@13");
    await().atMost(WAIT).until(() -> reflector.lastSyncResourceVersion().equals("13"));
  }

  @Test
  void bookmarkOnlyAdvancesTheResourceVersion() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    watch.bookmark("42");
    await().atMost(WAIT).until(() -> reflector.lastSyncResourceVersion().equals("42"));
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "43"));
    assertThat(store.next()).isEqualTo("add c@43"); // nothing was written for the bookmark
  }

  @Test
  void serverClosedWatchIsReopenedFromTheLastResourceVersionWithoutRelisting() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    lw.nextWatchRequest();
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    watch.bookmark("15");
    watch.closeFromServer();
    assertThat(lw.nextWatchRequest().resourceVersion()).isEqualTo("15");
    assertThat(lw.listRequests()).hasSize(1);
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void watchErrorEvent410MarksTheResourceVersionUnusableAndRelistsWithEmptyResourceVersion() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    lw.nextListRequest();
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    watch.error(FakeListerWatcher.status(410, "Expired"));
    assertThat(store.next()).isEqualTo("add c@11");
    await().atMost(WAIT).until(reflector::isLastSyncResourceVersionUnavailable);
    assertThat(reflector.isWatching()).isFalse();
    lw.setContent(List.of(pod("ns", "a", "20")), "20");
    advancePastBackoff(1);
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("", 500, ""));
    assertThat(store.next()).isEqualTo("replace a@20 @20");
    // the resourceVersion is recorded right after the store is replaced
    await().atMost(WAIT).until(() -> reflector.lastSyncResourceVersion().equals("20"));
    assertThat(reflector.isLastSyncResourceVersionUnavailable()).isFalse();
  }

  @Test
  void watchRefusedWith410RelistsWithEmptyResourceVersion() throws Exception {
    lw.failNextWatch(FakeListerWatcher.status(410, "Gone"));
    start();
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("0", 500, ""));
    advancePastBackoff(1);
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("", 500, ""));
  }

  @Test
  void expiredRelistIsRetriedAtOnceWithAConsistentRead() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    lw.nextListRequest();
    watch.emit(WatchEvent.Type.ADDED, pod("ns", "c", "11"));
    watch.error(FakeListerWatcher.status(500, "InternalError"));
    lw.failNextList(FakeListerWatcher.status(410, "Expired"));
    advancePastBackoff(1);
    // a relist at a known resourceVersion is unpaginated so a watch cache can serve it
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("11", 0, ""));
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("", 0, ""));
    assertThat(clock.sleeps()).hasSize(1);
  }

  @Test
  void otherWatchFailureRelistsFromTheLastResourceVersionAfterBackoff() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    lw.nextListRequest();
    watch.bookmark("12");
    watch.error(new IllegalStateException("undecodable event"));
    advancePastBackoff(1);
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("12", 0, ""));
    assertThat(clock.sleeps()).containsExactly(Duration.ofMillis(800));
  }

  @Test
  void failingListsBackOffExponentiallyWithJitter() throws Exception {
    for (int i = 0; i < 3; i++) {
      lw.failNextList(FakeListerWatcher.status(500, "InternalError"));
    }
    start(Duration.ZERO, () -> 0.5);
    for (int i = 0; i < 3; i++) {
      lw.nextListRequest();
      advancePastBackoff(1);
    }
    lw.nextListRequest();
    assertThat(lw.nextWatchRequest().resourceVersion()).isEqualTo("1");
    assertThat(clock.sleeps()).containsExactly(
        Duration.ofMillis(1200), Duration.ofMillis(2400), Duration.ofMillis(4800));
  }

  @Test
  void refusedConnectionRetriesTheWatchWithoutRelisting() throws Exception {
    lw.failNextWatch(new KubernetesClientException("connect", new ConnectException("refused")));
    start();
    assertThat(lw.nextWatchRequest().resourceVersion()).isEqualTo("1");
    advancePastBackoff(1);
    assertThat(lw.nextWatchRequest().resourceVersion()).isEqualTo("1");
    lw.nextWatch();
    assertThat(lw.listRequests()).hasSize(1);
  }

  @Test
  void throttledWatchIsRetriedWithoutRelisting() throws Exception {
    lw.failNextWatch(FakeListerWatcher.status(429, "TooManyRequests"));
    start();
    lw.nextWatchRequest();
    advancePastBackoff(1);
    lw.nextWatch();
    assertThat(lw.listRequests()).hasSize(1);
  }

  @Test
  void veryShortWatchWithoutEventsCountsAsAFailure() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    lw.nextListRequest();
    watch.closeFromServer(); // no time passed, no event
    advancePastBackoff(1);
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("10", 0, ""));
  }

  @Test
  void quietWatchLastingASecondIsReopenedWithoutRelisting() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    clock.advance(Duration.ofSeconds(1));
    watch.closeFromServer();
    lw.nextWatch();
    assertThat(lw.listRequests()).hasSize(1);
  }

  @Test
  void isWatchingOnlyWhileAWatchIsOpen() throws Exception {
    lw.setContent(List.of(), "10");
    start();
    FakeListerWatcher.FakeWatchStream<Pod> watch = lw.nextWatch();
    await().atMost(WAIT).until(reflector::isWatching);
    lw.failNextWatch(FakeListerWatcher.status(500, "InternalError"));
    clock.advance(Duration.ofSeconds(2));
    watch.closeFromServer();
    // the rewatch fails: the reflector backs off before relisting, and is not watching meanwhile
    await().atMost(WAIT).until(() -> clock.sleepers() == 1);
    assertThat(reflector.isWatching()).isFalse();
    clock.advance(Duration.ofMinutes(1));
    lw.nextWatch();
    await().atMost(WAIT).until(reflector::isWatching);
  }

  @Test
  void stopClosesTheWatchAndEndsRun() throws Exception {
    FakeListerWatcher.FakeWatchStream<Pod> watch = listAndOpenWatch();
    await().atMost(WAIT).until(reflector::isWatching);
    reflector.stop();
    thread.join(WAIT.toMillis());
    assertThat(thread.isAlive()).isFalse();
    assertThat(watch.closedByClient()).isTrue();
    assertThat(reflector.isWatching()).isFalse();
  }

  @Test
  void stopEndsRunWhileBackingOff() throws Exception {
    lw.failNextList(FakeListerWatcher.status(500, "InternalError"));
    start();
    await().atMost(WAIT).until(() -> clock.sleepers() == 1);
    reflector.stop();
    thread.join(WAIT.toMillis());
    assertThat(thread.isAlive()).isFalse();
    assertThat(lw.listRequests()).hasSize(1);
  }

  @Test
  void resyncTicksResyncTheStoreWhenTheProcessorAgrees() throws Exception {
    lw.setContent(List.of(), "10");
    start(Duration.ofSeconds(30), () -> 0.0);
    assertThat(store.next()).isEqualTo("replace  @10");
    lw.nextWatch();
    await().atMost(WAIT).until(() -> clock.sleepers() == 1); // the resync timer
    clock.advance(Duration.ofSeconds(30));
    assertThat(store.next()).isEqualTo("resync");
    shouldResync.set(false);
    await().atMost(WAIT).until(() -> clock.sleepers() == 1);
    clock.advance(Duration.ofSeconds(30));
    await().atMost(WAIT).until(() -> clock.sleepers() == 1 && clock.sleeps().size() == 3);
    assertThat(store.operations).isEmpty();
  }

  @Test
  void zeroListThatCameInPagesKeepsPagingOnRelist() throws Exception {
    lw.scriptList(new ListPage<>(List.of(pod("ns", "a", "1")), "10", "next"));
    lw.scriptList(new ListPage<>(List.of(pod("ns", "b", "1")), "10", ""));
    start();
    assertThat(store.next()).isEqualTo("replace a@1,b@1 @10");
    FakeListerWatcher.FakeWatchStream<Pod> watch = lw.nextWatch();
    watch.error(FakeListerWatcher.status(500, "InternalError"));
    advancePastBackoff(1);
    lw.nextListRequest();
    lw.nextListRequest();
    assertThat(lw.nextListRequest()).isEqualTo(new ListRequest("10", 500, ""));
  }
}
