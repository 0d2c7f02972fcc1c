package io.berth.scheduler.apidispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ApiCacher.Outcome;
import io.berth.scheduler.SchedulerMetrics;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's lifecycle and metrics, translated from upstream's {@code api_dispatcher_test.go}
 * (merge and sync before it runs, one execution, the execution metrics), with a fake clock for the
 * durations; plus its failure, drain and stop.
 */
class ApiDispatcherTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  // advances 3 ms per reading: each execution lasts 3 ms
  private final AtomicLong clock = new AtomicLong();
  private final ApiDispatcher dispatcher = new ApiDispatcher(1, MockCall.RELEVANCES,
      new SchedulerMetrics(registry), () -> clock.addAndGet(3_000_000));

  @AfterEach
  void close() throws InterruptedException {
    dispatcher.close(Duration.ofSeconds(5));
  }

  @Test
  void aCallMergedAndSyncedBeforeTheDispatcherRunsIsExecutedOnceAndCounted() throws Exception {
    MockCall call1 = new MockCall(MockCall.LOW, "uid");
    MockCall call2 = new MockCall(MockCall.LOW, "uid");
    var done1 = dispatcher.add(call1).toCompletableFuture();
    var done2 = dispatcher.add(call2).toCompletableFuture();
    assertThat(call2.merges).hasValue(1);
    assertThat(done1).isCompletedWithValue(Outcome.OVERWRITTEN);

    dispatcher.syncObject(new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build());
    assertThat(call2.syncs).hasValue(1);
    assertThat(registry.scrape()).contains("scheduler_pending_async_api_calls{call_type=\"low\"} 1.0");

    dispatcher.start();

    assertThat(done2.get(5, TimeUnit.SECONDS)).isEqualTo(Outcome.EXECUTED);
    assertThat(call1.executes).hasValue(0);
    assertThat(call2.executes).hasValue(1);
    assertThat(call2.noOpChecks).as("on add and on sync").hasValue(2);
    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("scheduler_async_api_call_execution_total{call_type=\"low\",result=\"success\"} 1.0")
        .contains("scheduler_async_api_call_execution_duration_seconds_count{call_type=\"low\","
            + "result=\"success\"} 1")
        .contains("scheduler_async_api_call_execution_duration_seconds_sum{call_type=\"low\","
            + "result=\"success\"} 0.003")
        .contains("scheduler_async_api_call_execution_duration_seconds_bucket{call_type=\"low\","
            + "result=\"success\",le=\"0.004\"} 1")
        .contains("scheduler_pending_async_api_calls{call_type=\"low\"} 0.0")
        .contains("scheduler_pending_async_api_calls{call_type=\"high\"} 0.0");
  }

  @Test
  void aFailingCallFailsItsCompletionAndCountsAnError() throws Exception {
    MockCall call = new MockCall(MockCall.HIGH, "uid");
    call.onExecute = () -> {
      throw new IllegalStateException("HTTP 409");
    };
    dispatcher.start();

    var done = dispatcher.add(call).toCompletableFuture();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> done.get(5, TimeUnit.SECONDS))
        .hasRootCauseMessage("HTTP 409");
    assertThat(registry.scrape()).contains(
        "scheduler_async_api_call_execution_total{call_type=\"high\",result=\"error\"} 1.0");
    assertThat(dispatcher.heldCalls()).isZero();
  }

  @Test
  void aCompletionFindsItsObjectFreeForTheNextCall() throws Exception {
    dispatcher.start();
    var first = dispatcher.add(new MockCall(MockCall.HIGH, "uid")).toCompletableFuture();
    first.get(5, TimeUnit.SECONDS);

    // a less relevant call right after the completion is not skipped by the finished one
    var next = dispatcher.add(new MockCall(MockCall.LOW, "uid")).toCompletableFuture();
    assertThat(next.get(5, TimeUnit.SECONDS)).isEqualTo(Outcome.EXECUTED);
  }

  @Test
  void closeRunsWhatIsQueuedThenRefusesNewCalls() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    MockCall slow = new MockCall(MockCall.LOW, "a");
    slow.onExecute = () -> {
      try {
        release.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    MockCall queued = new MockCall(MockCall.LOW, "b");
    dispatcher.start();
    var slowDone = dispatcher.add(slow).toCompletableFuture();
    var queuedDone = dispatcher.add(queued).toCompletableFuture();
    release.countDown();

    assertThat(dispatcher.close(Duration.ofSeconds(5))).isTrue();
    assertThat(slowDone).isCompletedWithValue(Outcome.EXECUTED);
    assertThat(queuedDone).isCompletedWithValue(Outcome.EXECUTED);
    assertThat(dispatcher.add(new MockCall(MockCall.LOW, "c")).toCompletableFuture())
        .isCompletedExceptionally();
  }

  @Test
  void closeFailsWhatItCouldNotRunInTime() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    MockCall stuck = new MockCall(MockCall.LOW, "a");
    stuck.onExecute = () -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    dispatcher.start();
    dispatcher.add(stuck);
    while (stuck.executes.get() == 0) {
      Thread.onSpinWait();
    }
    var waiting = dispatcher.add(new MockCall(MockCall.LOW, "b")).toCompletableFuture();

    assertThat(dispatcher.close(Duration.ofMillis(50))).isFalse();
    assertThat(waiting).isCompletedExceptionally();
  }

  @Test
  void parallelismBelowOneIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ApiDispatcher(0,
        ApiDispatcherMetrics.NOOP)).hasMessageContaining("parallelism");
  }
}
