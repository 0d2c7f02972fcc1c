package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {

  @Test
  void aSuccessfulSyncCountsAsSuccessAndRecordsItsDuration() {
    MockClock clock = new MockClock();
    SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    metrics.timeSync("replicaset", () -> clock.add(Duration.ofMillis(250)));
    ControllerMetrics.SyncMeters m = metrics.register("replicaset");
    assertThat(m.success().count()).isEqualTo(1.0);
    assertThat(m.error().count()).isZero();
    assertThat(m.duration().count()).isEqualTo(1);
    assertThat(m.duration().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(250.0);
  }

  @Test
  void aThrowingSyncCountsAsErrorAndItsExceptionComesOutUnchanged() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ControllerMetrics metrics = new ControllerMetrics(registry);
    IOException failure = new IOException("conflict");
    assertThatThrownBy(() -> metrics.timeSync("deployment", () -> {
      throw failure;
    })).isSameAs(failure);
    ControllerMetrics.SyncMeters m = metrics.register("deployment");
    assertThat(m.error().count()).isEqualTo(1.0);
    assertThat(m.success().count()).isZero();
    assertThat(m.duration().count()).isEqualTo(1);
  }

  @Test
  void prometheusNamesAndLabelsAreTheDocumentedOnes() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT,
        new PrometheusRegistry(), io.micrometer.core.instrument.Clock.SYSTEM);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    metrics.register("deployment");
    metrics.timeSync("replicaset", () -> { });
    String text = registry.scrape();
    assertThat(text)
        .contains("berth_controller_syncs_total{controller=\"replicaset\",result=\"success\"} 1.0")
        .contains("berth_controller_syncs_total{controller=\"replicaset\",result=\"error\"} 0.0")
        .contains("berth_controller_syncs_total{controller=\"deployment\",result=\"success\"} 0.0")
        .contains("# TYPE berth_controller_sync_duration_seconds histogram")
        .contains("berth_controller_sync_duration_seconds_bucket{controller=\"replicaset\",le=\"0.001\"}")
        .contains("berth_controller_sync_duration_seconds_bucket{controller=\"replicaset\",le=\"16.384\"}")
        .contains("berth_controller_sync_duration_seconds_count{controller=\"replicaset\"} 1");
  }

  @Test
  void concurrentSyncsAreAllCounted() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ControllerMetrics metrics = new ControllerMetrics(registry);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < 500; i++) {
            String controller = (i % 2 == 0) ? "replicaset" : "deployment";
            boolean fail = (i + thread) % 5 == 0;
            try {
              metrics.timeSync(controller, () -> {
                if (fail) {
                  throw new IllegalStateException("boom");
                }
              });
            } catch (IllegalStateException expected) {
              // counted as error
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    double total = 0;
    double errors = 0;
    for (String c : List.of("replicaset", "deployment")) {
      ControllerMetrics.SyncMeters m = metrics.register(c);
      total += m.success().count() + m.error().count();
      errors += m.error().count();
      assertThat(m.duration().count()).isEqualTo(2000);
    }
    assertThat(total).isEqualTo(4000.0);
    assertThat(errors).isEqualTo(800.0);
  }
}
