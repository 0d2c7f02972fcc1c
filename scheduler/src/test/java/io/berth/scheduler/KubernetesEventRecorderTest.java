package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The recorder's queueing, aggregation, write concurrency and shutdown, on a fake sink. */
class KubernetesEventRecorderTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern COUNT = Pattern.compile("\"count\":(\\d+)");

  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
  private final List<KubernetesEventRecorder> toClose = new ArrayList<>();

  @AfterEach
  void close() {
    toClose.forEach(KubernetesEventRecorder::close);
  }

  /** One write as the sink saw it, with the future the test completes. */
  record Write(boolean create, String namespace, String name, String json,
      CompletableFuture<Integer> answer) {
    int count() {
      Matcher m = COUNT.matcher(json);
      return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
  }

  /**
   * Keeps every write; the test answers them, or, once {@link #answerAll} was called, another
   * thread answers each at once (thread-safe).
   */
  static final class ManualSink implements EventSink {
    final List<Write> writes = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile ExecutorService answerer;

    @Override
    public CompletableFuture<Integer> create(String namespace, String json) {
      Event e = JSON.unmarshal(json, Event.class);
      return add(new Write(true, namespace, e.getMetadata().getName(), json, new CompletableFuture<>()));
    }

    @Override
    public CompletableFuture<Integer> patch(String namespace, String name, String json) {
      return add(new Write(false, namespace, name, json, new CompletableFuture<>()));
    }

    private CompletableFuture<Integer> add(Write w) {
      writes.add(w);
      ExecutorService a = answerer;
      if (a != null) {
        a.execute(() -> w.answer.complete(201));
      }
      return w.answer;
    }

    /** Answers every write so far, and every later one, with 201 from {@code executor}. */
    void answerAll(ExecutorService executor) {
      answerer = executor;
      List<Write> held;
      synchronized (writes) {
        held = new ArrayList<>(writes);
      }
      held.forEach(w -> executor.execute(() -> w.answer.complete(201)));
    }

    Write get(int i) {
      return writes.get(i);
    }
  }

  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00.123456789Z");
  /** The test's clock: fixed unless a test moves it. */
  private volatile Instant now = NOW;

  private KubernetesEventRecorder recorder(EventSink sink, Duration closeTimeout) {
    return recorder(sink, new EventsV1EventFormat("test-scheduler", "test-scheduler-host-1"), closeTimeout);
  }

  private KubernetesEventRecorder recorder(EventSink sink, EventWireFormat format, Duration closeTimeout) {
    KubernetesEventRecorder r = new KubernetesEventRecorder(sink, format, metrics, () -> now, closeTimeout);
    toClose.add(r);
    return r;
  }

  private double count(String result) {
    return metrics.get("berth_scheduler_events").tag("result", result).counter().count();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name)
        .withUid("uid-" + name).withResourceVersion("7").endMetadata().build();
  }

  @Test
  void writesTheEventsV1EventUpstreamsRecorderWould() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "Successfully assigned ns/p to n1");
    await().atMost(WAIT).until(() -> sink.writes.size() == 1);
    Write w = sink.get(0);
    assertThat(w.create()).isTrue();
    assertThat(w.namespace()).isEqualTo("ns");
    io.fabric8.kubernetes.api.model.events.v1.Event e =
        JSON.unmarshal(w.json(), io.fabric8.kubernetes.api.model.events.v1.Event.class);
    assertThat(e.getApiVersion()).isEqualTo("events.k8s.io/v1");
    assertThat(e.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(e.getMetadata().getName()).isEqualTo("p." + Long.toHexString(
        NOW.getEpochSecond() * 1_000_000_000L + NOW.getNano()));
    assertThat(e.getRegarding().getUid()).isEqualTo("uid-p");
    assertThat(e.getRegarding().getKind()).isEqualTo("Pod");
    assertThat(e.getRegarding().getNamespace()).isEqualTo("ns");
    assertThat(e.getRegarding().getResourceVersion()).isEqualTo("7");
    assertThat(e.getReason()).isEqualTo("Scheduled");
    assertThat(e.getAction()).isEqualTo("Binding");
    assertThat(e.getType()).isEqualTo("Normal");
    assertThat(e.getNote()).isEqualTo("Successfully assigned ns/p to n1");
    assertThat(e.getReportingController()).isEqualTo("test-scheduler");
    assertThat(e.getReportingInstance()).isEqualTo("test-scheduler-host-1");
    assertThat(e.getEventTime().getTime()).isEqualTo("2026-12-01T12:00:00.123456Z");
    assertThat(e.getSeries()).isNull();
    assertThat(w.json()).doesNotContain("deprecated", "count", "series");
    w.answer().complete(201);
    await().atMost(WAIT).until(() -> count("written") == 1);
  }

  @Test
  void theCoreV1FormatWritesTheEventUpstreamsLegacyRecorderWould() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, new CoreV1EventFormat("test-scheduler"), Duration.ofMillis(200));
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "Successfully assigned ns/p to n1");
    await().atMost(WAIT).until(() -> sink.writes.size() == 1);
    Write w = sink.get(0);
    assertThat(w.create()).isTrue();
    Event e = JSON.unmarshal(w.json(), Event.class);
    assertThat(e.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(e.getMetadata().getName()).startsWith("p.");
    assertThat(e.getInvolvedObject().getUid()).isEqualTo("uid-p");
    assertThat(e.getInvolvedObject().getKind()).isEqualTo("Pod");
    assertThat(e.getInvolvedObject().getResourceVersion()).isEqualTo("7");
    assertThat(e.getReason()).isEqualTo("Scheduled");
    assertThat(e.getAction()).isEqualTo("Binding");
    assertThat(e.getType()).isEqualTo("Normal");
    assertThat(e.getSource().getComponent()).isEqualTo("test-scheduler");
    assertThat(e.getReportingComponent()).isEqualTo("test-scheduler");
    assertThat(e.getCount()).isEqualTo(1);
    assertThat(e.getFirstTimestamp()).isEqualTo("2026-12-01T12:00:00Z");
    w.answer().complete(201);
    // core/v1 repeats are by message: the same message patches the count, another one is another Event
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "Successfully assigned ns/p to n1");
    await().atMost(WAIT).until(() -> sink.writes.size() == 2);
    assertThat(sink.get(1).create()).isFalse();
    assertThat(sink.get(1).json()).isEqualTo("{\"count\":2,\"lastTimestamp\":\"2026-12-01T12:00:00Z\"}");
    sink.get(1).answer().complete(200);
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "Successfully assigned ns/p to n2");
    await().atMost(WAIT).until(() -> sink.writes.size() == 3);
    assertThat(sink.get(2).create()).isTrue();
  }

  @Test
  void repeatsWhileTheCreateIsInFlightAreFoldedIntoOnePatchAfterIt() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    for (int i = 0; i < 5; i++) {
      r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available");
    }
    await().atMost(WAIT).until(() -> count("aggregated") == 4);
    assertThat(sink.writes).hasSize(1); // no patch before the create is answered
    sink.get(0).answer().complete(201);
    await().atMost(WAIT).until(() -> sink.writes.size() == 2);
    Write patch = sink.get(1);
    assertThat(patch.create()).isFalse();
    assertThat(patch.name()).isEqualTo(sink.get(0).name());
    assertThat(patch.json()).isEqualTo(
        "{\"series\":{\"count\":5,\"lastObservedTime\":\"2026-12-01T12:00:00.123456Z\"}}");
    patch.answer().complete(200);
    // a repeat after that patches at once, with the running count
    r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available");
    await().atMost(WAIT).until(() -> sink.writes.size() == 3);
    assertThat(sink.get(2).count()).isEqualTo(6);
    sink.get(2).answer().complete(200);
    // another note is the same series (upstream's isomorphic events do not compare the note)
    r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "0/4 nodes are available");
    await().atMost(WAIT).until(() -> sink.writes.size() == 4);
    assertThat(sink.get(3).create()).isFalse();
    assertThat(sink.get(3).count()).isEqualTo(7);
    sink.get(3).answer().complete(200);
    // the object changed (another resourceVersion): another Event
    Pod changed = pod("p");
    changed.getMetadata().setResourceVersion("8");
    r.event(changed, "Warning", "FailedScheduling", "Scheduling", "0/4 nodes are available");
    await().atMost(WAIT).until(() -> sink.writes.size() == 5);
    assertThat(sink.get(4).create()).isTrue();
    assertThat(sink.get(4).name()).isNotEqualTo(sink.get(0).name());
    assertThat(sink.get(4).json()).doesNotContain("series");
  }

  @Test
  void aSeriesWithoutARepeatForSixMinutesIsFinishedAndTheNextOccurrenceIsANewEvent() {
    ManualSink sink = new ManualSink();
    sink.answerAll(java.util.concurrent.ForkJoinPool.commonPool());
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "m");
    await().atMost(WAIT).until(() -> count("written") == 1);
    now = NOW.plus(EventsV1EventFormat.SERIES_IDLE);
    r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "m");
    await().atMost(WAIT).until(() -> count("written") == 2);
    assertThat(sink.get(1).create()).isFalse(); // exactly six minutes: still the series
    now = now.plus(EventsV1EventFormat.SERIES_IDLE).plusNanos(1000);
    r.event(pod("p"), "Warning", "FailedScheduling", "Scheduling", "m");
    await().atMost(WAIT).until(() -> count("written") == 3);
    assertThat(sink.get(2).create()).isTrue();
    assertThat(sink.get(2).name()).isNotEqualTo(sink.get(0).name());
  }

  @Test
  void aPatchOfAnEventTheServerNoLongerHasCreatesItAgainWithTheCount() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "m");
    await().atMost(WAIT).until(() -> sink.writes.size() == 1);
    sink.get(0).answer().complete(201);
    r.event(pod("p"), "Normal", "Scheduled", "Binding", "m");
    await().atMost(WAIT).until(() -> sink.writes.size() == 2);
    sink.get(1).answer().complete(404);
    await().atMost(WAIT).until(() -> sink.writes.size() == 3);
    Write again = sink.get(2);
    assertThat(again.create()).isTrue();
    assertThat(again.name()).isEqualTo(sink.get(0).name());
    assertThat(again.count()).isEqualTo(2);
    // the Event written again carries its series, as upstream's create after a patch's 404
    io.fabric8.kubernetes.api.model.events.v1.Event e =
        JSON.unmarshal(again.json(), io.fabric8.kubernetes.api.model.events.v1.Event.class);
    assertThat(e.getSeries().getCount()).isEqualTo(2);
    assertThat(e.getSeries().getLastObservedTime().getTime()).isEqualTo("2026-12-01T12:00:00.123456Z");
    assertThat(e.getNote()).isEqualTo("m");
  }

  @Test
  void refusedAndUnreachableWritesAreCountedAsFailed() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    r.event(pod("a"), "Normal", "Scheduled", "Binding", "m");
    r.event(pod("b"), "Normal", "Scheduled", "Binding", "m");
    await().atMost(WAIT).until(() -> sink.writes.size() == 2);
    sink.get(0).answer().complete(403);
    sink.get(1).answer().completeExceptionally(new java.io.IOException("connection refused"));
    await().atMost(WAIT).until(() -> count("failed") == 2);
    // a refused create does not poison the object's later events
    r.event(pod("a"), "Normal", "Scheduled", "Binding", "m");
    await().atMost(WAIT).until(() -> sink.writes.size() == 3);
    assertThat(sink.get(2).create()).isTrue();
  }

  @Test
  void atMostMaxInFlightWritesAreOutstandingAndABacklogBeyondTheBoundIsDroppedAndCounted() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(200));
    int total = KubernetesEventRecorder.MAX_QUEUED_EVENTS + KubernetesEventRecorder.MAX_IN_FLIGHT
        + 500;
    for (int i = 0; i < total; i++) {
      r.event(pod("p-" + i), "Normal", "Scheduled", "Binding", "m");
    }
    await().atMost(WAIT).until(() -> sink.writes.size() == KubernetesEventRecorder.MAX_IN_FLIGHT);
    double dropped = count("dropped");
    assertThat(dropped).isGreaterThanOrEqualTo(500);
    assertThat(r.backlog() + sink.writes.size() + (long) dropped).isEqualTo(total);
    // answering frees the slots: everything accepted is written, nothing more is dropped
    ExecutorService answers = Executors.newSingleThreadExecutor();
    try {
      sink.answerAll(answers);
      await().atMost(Duration.ofSeconds(60)).until(() -> count("written") == total - dropped);
    } finally {
      answers.shutdownNow();
    }
    assertThat(count("dropped")).isEqualTo(dropped);
    assertThat(sink.writes).hasSize(total - (int) dropped);
  }

  @Test
  void closeWritesWhatIsQueuedAndCountsWhatTheServerDidNotAnswerAsDropped() {
    ManualSink sink = new ManualSink();
    KubernetesEventRecorder r = recorder(sink, Duration.ofMillis(300));
    for (int i = 0; i < 40; i++) {
      r.event(pod("p-" + i), "Normal", "Scheduled", "Binding", "m");
    }
    await().atMost(WAIT).until(() -> sink.writes.size() == KubernetesEventRecorder.MAX_IN_FLIGHT);
    for (int i = 0; i < 10; i++) {
      sink.get(i).answer().complete(201); // 10 answered: 8 more get their slot
    }
    r.close();
    assertThat(sink.writes).hasSize(40);
    assertThat(count("written")).isEqualTo(10);
    assertThat(count("dropped")).isEqualTo(30);
    r.event(pod("late"), "Normal", "Scheduled", "Binding", "m");
    assertThat(count("dropped")).isEqualTo(31);
    assertThat(sink.writes).hasSize(40);
  }

  @Test
  void concurrentRecordersWithAnswersOnOtherThreadsEndWithEachSeriesCountCorrect()
      throws Exception {
    // answers on 4 threads after random delays; 8 threads record 64 objects x 3 reasons, 10 times
    ExecutorService answerers = Executors.newFixedThreadPool(4);
    AtomicInteger outstanding = new AtomicInteger();
    AtomicInteger maxOutstanding = new AtomicInteger();
    // name -> latest count the server holds; a patch for a name not yet created is an error
    Map<String, Integer> server = new ConcurrentHashMap<>();
    Map<String, String> reasonOf = new ConcurrentHashMap<>();
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    EventSink sink = new EventSink() {
      private CompletableFuture<Integer> answer(Runnable apply) {
        int now = outstanding.incrementAndGet();
        maxOutstanding.accumulateAndGet(now, Math::max);
        CompletableFuture<Integer> f = new CompletableFuture<>();
        answerers.execute(() -> {
          try {
            Thread.sleep(ThreadLocalRandom.current().nextInt(3));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          apply.run();
          outstanding.decrementAndGet();
          f.complete(200);
        });
        return f;
      }

      @Override
      public CompletableFuture<Integer> create(String namespace, String json) {
        var e = JSON.unmarshal(json, io.fabric8.kubernetes.api.model.events.v1.Event.class);
        String name = e.getMetadata().getName();
        int count = e.getSeries() == null ? 1 : e.getSeries().getCount();
        return answer(() -> {
          if (server.putIfAbsent(name, count) != null) {
            errors.add("created twice: " + name);
          }
          reasonOf.put(name, e.getRegarding().getName() + "/" + e.getReason());
        });
      }

      @Override
      public CompletableFuture<Integer> patch(String namespace, String name, String json) {
        Matcher m = COUNT.matcher(json);
        m.find();
        int count = Integer.parseInt(m.group(1));
        return answer(() -> {
          Integer before = server.get(name);
          if (before == null) {
            errors.add("patched before its create was answered: " + name);
          } else if (count <= before) {
            errors.add("count went from " + before + " to " + count + " for " + name);
          } else {
            server.put(name, count);
          }
        });
      }
    };
    KubernetesEventRecorder r = recorder(sink, Duration.ofSeconds(5));
    int threads = 8;
    int rounds = 10;
    String[] reasons = {"Scheduled", "FailedScheduling", "Preempted"};
    ExecutorService recorders = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(recorders.submit(() -> {
        start.await();
        for (int round = 0; round < rounds; round++) {
          for (int o = 0; o < 64; o++) {
            for (String reason : reasons) {
              while (r.backlog() > KubernetesEventRecorder.MAX_QUEUED_EVENTS / 2) {
                Thread.sleep(1); // this test is about correctness, not about the bound
              }
              r.event(pod("p-" + o), "Normal", reason, "Binding", "m");
            }
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (var f : futures) {
      f.get(60, TimeUnit.SECONDS);
    }
    recorders.shutdown();
    r.close();
    answerers.shutdown();
    assertThat(answerers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(errors).isEmpty();
    assertThat(count("dropped")).isZero();
    assertThat(maxOutstanding.get()).isLessThanOrEqualTo(KubernetesEventRecorder.MAX_IN_FLIGHT);
    Map<String, Integer> countBySeries = new HashMap<>();
    server.forEach((name, count) -> countBySeries.merge(reasonOf.get(name), count, Integer::sum));
    assertThat(countBySeries).hasSize(64 * reasons.length);
    assertThat(countBySeries.values()).allMatch(c -> c == threads * rounds);
  }
}
