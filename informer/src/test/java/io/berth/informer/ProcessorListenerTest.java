package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProcessorListenerTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ExecutorService handlerPool = Executors.newCachedThreadPool();
  private final FakeClock clock = new FakeClock();

  @AfterEach
  void tearDown() {
    handlerPool.shutdownNow();
  }

  /** Records the names of added pods, optionally blocking on a gate first. */
  private static final class GatedHandler implements ResourceEventHandler<Pod> {
    final List<String> added = Collections.synchronizedList(new ArrayList<>());
    final List<String> updated = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch gate;
    final AtomicInteger concurrent = new AtomicInteger();
    final AtomicBoolean overlapped = new AtomicBoolean();

    GatedHandler(CountDownLatch gate) {
      this.gate = gate;
    }

    @Override
    public void onAdd(Pod obj, boolean isInInitialList) {
      if (concurrent.incrementAndGet() > 1) {
        overlapped.set(true);
      }
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      added.add(obj.getMetadata().getName());
      concurrent.decrementAndGet();
    }

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      updated.add(newObj.getMetadata().getName());
    }
  }

  private ProcessorListener<Pod> listener(ResourceEventHandler<Pod> handler, Duration resync) {
    return new ProcessorListener<>(handler, resync, resync, clock.nanoTime(), () -> true, "test");
  }

  private static Notification.Add<Pod> add(String name) {
    return new Notification.Add<>(pod("ns", name, "1"), false);
  }

  @Test
  void slowHandlerNeitherBlocksOtherHandlersNorTheDistributor() {
    SharedProcessor<Pod> processor = new SharedProcessor<>(clock);
    CountDownLatch slowGate = new CountDownLatch(1);
    GatedHandler slow = new GatedHandler(slowGate);
    GatedHandler fast = new GatedHandler(new CountDownLatch(0));
    ProcessorListener<Pod> slowListener = listener(slow, Duration.ZERO);
    processor.addListener(slowListener);
    processor.addListener(listener(fast, Duration.ZERO));
    processor.start(handlerPool);

    int n = 10_000;
    for (int i = 0; i < n; i++) {
      processor.distribute(add("p" + i), false); // returns although `slow` is stuck on the first
    }
    await().atMost(WAIT).until(() -> fast.added.size() == n);
    assertThat(slow.added).isEmpty();
    assertThat(slowListener.pending()).isEqualTo(n - 1); // unbounded buffer holds the rest

    slowGate.countDown();
    await().atMost(WAIT).until(() -> slow.added.size() == n);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      expected.add("p" + i);
    }
    assertThat(slow.added).containsExactlyElementsOf(expected);
    assertThat(fast.added).containsExactlyElementsOf(expected);
    assertThat(slow.overlapped).isFalse();
  }

  @Test
  void notificationsBufferedBeforeStartAreDeliveredInOrder() {
    GatedHandler handler = new GatedHandler(new CountDownLatch(0));
    ProcessorListener<Pod> listener = listener(handler, Duration.ZERO);
    listener.add(add("a"));
    listener.add(add("b"));
    assertThat(handler.added).isEmpty();
    listener.start(handlerPool);
    await().atMost(WAIT).until(() -> handler.added.size() == 2);
    assertThat(handler.added).containsExactly("a", "b");
  }

  @Test
  void failingHandlerSkipsTheNotificationAndGoesOn() {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    ResourceEventHandler<Pod> flaky = new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod obj, boolean isInInitialList) {
        if (obj.getMetadata().getName().equals("bad")) {
          throw new IllegalStateException("handler bug");
        }
        seen.add(obj.getMetadata().getName());
      }
    };
    ProcessorListener<Pod> listener = listener(flaky, Duration.ZERO);
    listener.start(handlerPool);
    listener.add(add("a"));
    listener.add(add("bad"));
    listener.add(add("c"));
    await().atMost(WAIT).until(() -> seen.size() == 2);
    assertThat(seen).containsExactly("a", "c");
  }

  @Test
  void hasSyncedWaitsUntilInitialAddsAreDelivered() {
    AtomicBoolean upstreamSynced = new AtomicBoolean(false);
    CountDownLatch gate = new CountDownLatch(1);
    GatedHandler handler = new GatedHandler(gate);
    ProcessorListener<Pod> listener =
        new ProcessorListener<>(handler, Duration.ZERO, Duration.ZERO, 0, upstreamSynced::get, "test");
    listener.start(handlerPool);
    listener.add(new Notification.Add<>(pod("ns", "a", "1"), true));
    listener.add(new Notification.Add<>(pod("ns", "b", "1"), true));
    upstreamSynced.set(true);
    assertThat(listener.hasSynced()).isFalse();
    gate.countDown();
    await().atMost(WAIT).until(listener::hasSynced);
    assertThat(handler.added).containsExactly("a", "b");
  }

  @Test
  void hasSyncedNeedsTheUpstreamToHaveSynced() {
    AtomicBoolean upstreamSynced = new AtomicBoolean(false);
    ProcessorListener<Pod> listener = new ProcessorListener<>(new ResourceEventHandler<Pod>() {},
        Duration.ZERO, Duration.ZERO, 0, upstreamSynced::get, "test");
    assertThat(listener.hasSynced()).isFalse();
    upstreamSynced.set(true);
    assertThat(listener.hasSynced()).isTrue();
  }

  @Test
  void removedListenerDropsPendingNotifications() {
    SharedProcessor<Pod> processor = new SharedProcessor<>(clock);
    CountDownLatch gate = new CountDownLatch(1);
    GatedHandler handler = new GatedHandler(gate);
    ProcessorListener<Pod> listener = listener(handler, Duration.ZERO);
    processor.addListener(listener);
    processor.start(handlerPool);
    processor.distribute(add("in-flight"), false);
    processor.distribute(add("pending"), false);
    await().atMost(WAIT).until(() -> handler.concurrent.get() == 1);
    assertThat(processor.removeListener(listener)).isTrue();
    assertThat(processor.removeListener(listener)).isFalse();
    processor.distribute(add("after"), false);
    gate.countDown();
    await().atMost(WAIT).until(() -> handler.concurrent.get() == 0);
    assertThat(handler.added).containsExactly("in-flight");
    assertThat(listener.pending()).isZero();
  }

  @Test
  void syncNotificationsGoOnlyToListenersDueForResync() {
    SharedProcessor<Pod> processor = new SharedProcessor<>(clock);
    GatedHandler noResync = new GatedHandler(new CountDownLatch(0));
    GatedHandler everyMinute = new GatedHandler(new CountDownLatch(0));
    GatedHandler everyHour = new GatedHandler(new CountDownLatch(0));
    processor.addListener(listener(noResync, Duration.ZERO));
    processor.addListener(listener(everyMinute, Duration.ofMinutes(1)));
    processor.addListener(listener(everyHour, Duration.ofHours(1)));
    processor.start(handlerPool);
    Notification.Update<Pod> resync = new Notification.Update<>(pod("ns", "a", "1"), pod("ns", "a", "1"));

    processor.distribute(resync, true); // nobody is due yet
    assertThat(processor.shouldResync()).isFalse();
    clock.advance(Duration.ofMinutes(1));
    assertThat(processor.shouldResync()).isTrue();
    processor.distribute(resync, true);
    clock.advance(Duration.ofMinutes(59));
    assertThat(processor.shouldResync()).isTrue(); // both due now
    processor.distribute(resync, true);
    processor.distribute(new Notification.Update<>(pod("ns", "a", "1"), pod("ns", "b", "2")), false);

    await().atMost(WAIT).until(() -> everyMinute.updated.size() == 3 && everyHour.updated.size() == 2
        && noResync.updated.size() == 1);
    assertThat(noResync.updated).containsExactly("b");
    assertThat(everyMinute.updated).containsExactly("a", "a", "b");
    assertThat(everyHour.updated).containsExactly("a", "b");
  }

  @Test
  void concurrentDistributionReachesEveryListenerInPerProducerOrder() throws Exception {
    SharedProcessor<Pod> processor = new SharedProcessor<>(clock);
    int listeners = 4;
    int producers = 4;
    int perProducer = 2_000;
    List<Map<String, List<Integer>>> received = new ArrayList<>();
    for (int l = 0; l < listeners; l++) {
      Map<String, List<Integer>> byProducer = new ConcurrentHashMap<>();
      received.add(byProducer);
      processor.addListener(listener(new ResourceEventHandler<>() {
        @Override
        public void onAdd(Pod obj, boolean isInInitialList) {
          // confined to this listener's drain task: one call at a time
          byProducer.computeIfAbsent(obj.getMetadata().getNamespace(), k -> new ArrayList<>())
              .add(Integer.parseInt(obj.getMetadata().getName()));
        }
      }, Duration.ZERO));
    }
    processor.start(handlerPool);
    ExecutorService pool = Executors.newFixedThreadPool(producers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        String producer = "producer-" + p;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perProducer; i++) {
            processor.distribute(new Notification.Add<>(pod(producer, Integer.toString(i), "1"), false), false);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    await().atMost(WAIT).until(() -> received.stream()
        .allMatch(m -> m.size() == producers && m.values().stream().allMatch(l -> l.size() == perProducer)));
    for (Map<String, List<Integer>> byProducer : received) {
      for (List<Integer> sequence : byProducer.values()) {
        for (int i = 0; i < perProducer; i++) {
          assertThat(sequence.get(i)).isEqualTo(i);
        }
      }
    }
  }
}
