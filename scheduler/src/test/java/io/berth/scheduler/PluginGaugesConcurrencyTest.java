package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Plugins' gauges and counters through {@link SchedulerMetrics} from many threads at once (the quota writer's timer,
 * the scheduling thread's reclaim counts): each name and label set is one meter, the last value set wins, removed
 * gauges are gone from the registry, counters sum every increment.
 */
class PluginGaugesConcurrencyTest {
  @Test
  void concurrentSetsRemovesAndIncrementsKeepOneMeterPerLabelSet() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SchedulerMetrics metrics = new SchedulerMetrics(registry);
    int threads = 8;
    int rounds = 2000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < rounds; i++) {
            Map<String, String> shared = Map.of("namespace", "shared", "resource", "cpu");
            metrics.setGauge("berth_quota_used", "help", shared, i);
            Map<String, String> own = Map.of("namespace", "t" + thread, "resource", "cpu");
            metrics.setGauge("berth_quota_used", "help", own, i);
            if (i % 2 == 0) {
              metrics.removeGauge("berth_quota_used", own);
            }
            metrics.increment("berth_quota_reclaims", "help", Map.of("namespace", "shared"), 1);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(registry.find("berth.quota.used").tag("namespace", "shared").gauges()).hasSize(1);
    assertThat(registry.find("berth.quota.used").tag("namespace", "shared").gauge().value())
        .isEqualTo(rounds - 1);
    for (int t = 0; t < threads; t++) {
      // the last round (odd) set the gauge and did not remove it
      assertThat(registry.find("berth.quota.used").tag("namespace", "t" + t).gauge().value()).isEqualTo(rounds - 1);
    }
    metrics.removeGauge("berth_quota_used", Map.of("namespace", "t0", "resource", "cpu"));
    assertThat(registry.find("berth.quota.used").tag("namespace", "t0").gauges()).isEmpty();
    assertThat(registry.find("berth.quota.reclaims").counter().count()).isEqualTo(threads * rounds);
  }
}
