package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.workqueue.FakeClock;
import io.berth.workqueue.MicrometerMetricsProvider;
import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueueWorkersTest {

  private final FakeClock clock = new FakeClock();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private QueueWorkers workers;

  @AfterEach
  void stop() throws InterruptedException {
    if (workers != null) {
      workers.shutDown(Duration.ofSeconds(5));
    }
  }

  private double counter(String result) {
    return registry.get(ControllerMetrics.SYNCS).tag("controller", "test").tag("result", result).counter().count();
  }

  private QueueWorkers workers(QueueWorkers.SyncHandler handler) {
    RateLimitingQueue<String> queue = WorkQueues.newRateLimitingQueue("test",
        RateLimiters.<String>defaultControllerRateLimiter(clock), clock, new MicrometerMetricsProvider(registry));
    return new QueueWorkers("test", queue, handler, new ControllerMetrics(registry));
  }

  @Test
  void aFailingKeyIsRetriedWithBackoffAndForgottenOnceItSucceeds() {
    AtomicInteger attempts = new AtomicInteger();
    workers = workers(key -> {
      if (attempts.incrementAndGet() <= 2) {
        throw new IllegalStateException("conflict");
      }
    });
    workers.start(2);
    workers.queue().add("default/web");
    await().atMost(10, TimeUnit.SECONDS).until(() -> counter("error") == 1.0);
    assertThat(workers.queue().numRequeues("default/web")).isEqualTo(1);
    assertThat(attempts.get()).as("not retried before the backoff elapses").isEqualTo(1);
    clock.advance(Duration.ofMillis(5));
    await().atMost(10, TimeUnit.SECONDS).until(() -> counter("error") == 2.0);
    clock.advance(Duration.ofMillis(10));
    await().atMost(10, TimeUnit.SECONDS).until(() -> counter("success") == 1.0);
    assertThat(attempts.get()).isEqualTo(3);
    await().atMost(10, TimeUnit.SECONDS).until(() -> workers.queue().numRequeues("default/web") == 0);
  }

  @Test
  void metricsRenderInPrometheusUnderTheDocumentedNames() {
    workers = workers(key -> {
      if (key.equals("bad")) {
        throw new IllegalStateException("boom");
      }
    });
    workers.start(1);
    workers.queue().add("good");
    workers.queue().add("bad");
    await().atMost(10, TimeUnit.SECONDS).until(() -> counter("success") == 1.0 && counter("error") == 1.0);
    String scrape = registry.scrape();
    assertThat(scrape).contains("berth_controller_syncs_total{controller=\"test\",result=\"success\"} 1.0");
    assertThat(scrape).contains("berth_controller_syncs_total{controller=\"test\",result=\"error\"} 1.0");
    assertThat(scrape).contains("berth_controller_sync_duration_seconds_count{controller=\"test\"} 2");
    assertThat(scrape).contains("workqueue_adds_total{name=\"test\"}");
    assertThat(scrape).contains("workqueue_retries_total{name=\"test\"} 1.0");
  }

  @Test
  void oneKeyIsNeverSyncedByTwoWorkersAtOnce() throws Exception {
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger syncs = new AtomicInteger();
    workers = workers(key -> {
      if (!inFlight.add(key)) {
        overlaps.incrementAndGet();
      }
      Thread.yield();
      inFlight.remove(key);
      syncs.incrementAndGet();
    });
    workers.start(4);
    Thread[] producers = new Thread[4];
    for (int p = 0; p < producers.length; p++) {
      producers[p] = new Thread(() -> {
        for (int i = 0; i < 5_000; i++) {
          workers.queue().add("key-" + (i % 3));
        }
      });
      producers[p].start();
    }
    for (Thread t : producers) {
      t.join();
    }
    await().atMost(20, TimeUnit.SECONDS).until(() -> workers.queue().len() == 0 && inFlight.isEmpty());
    assertThat(overlaps.get()).isZero();
    assertThat(syncs.get()).isPositive();
  }

  @Test
  void shutDownLetsInFlightAndQueuedKeysFinish() throws Exception {
    CountDownLatch inSync = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> done = ConcurrentHashMap.newKeySet();
    workers = workers(key -> {
      if (key.equals("slow")) {
        inSync.countDown();
        release.await();
      }
      done.add(key);
    });
    workers.start(1);
    workers.queue().add("slow");
    assertThat(inSync.await(10, TimeUnit.SECONDS)).isTrue();
    workers.queue().add("queued");
    Thread shutter = new Thread(() -> {
      try {
        assertThat(workers.shutDown(Duration.ofSeconds(10))).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    shutter.start();
    workers.queue().add("after-shutdown");
    release.countDown();
    shutter.join(15_000);
    assertThat(shutter.isAlive()).isFalse();
    assertThat(done).contains("slow", "queued");
  }

  @Test
  void shuttingDownWorkersThatNeverStartedReturnsTrue() throws Exception {
    workers = workers(key -> { });
    assertThat(workers.shutDown(Duration.ZERO)).isTrue();
    assertThat(workers.queue().shuttingDown()).isTrue();
  }

  @Test
  void aZeroTimeoutReturnsAtOnceAndLetsTheSyncFinishUninterrupted() throws Exception {
    CountDownLatch inSync = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger interrupted = new AtomicInteger();
    workers = workers(key -> {
      inSync.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
        throw e;
      }
    });
    workers.start(1);
    workers.queue().add("slow");
    assertThat(inSync.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(workers.shutDown(Duration.ZERO)).isFalse();
    release.countDown();
    await().atMost(10, TimeUnit.SECONDS).until(() -> counter("success") == 1.0);
    assertThat(interrupted.get()).isZero();
  }
}
