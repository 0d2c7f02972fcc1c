package io.berth.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WorkQueueMetricsTest {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final FakeClock clock = new FakeClock();
  private final RateLimitingQueue<String> queue =
      WorkQueues.newRateLimitingQueue(
          "deployment",
          RateLimiters.defaultControllerRateLimiter(clock),
          clock,
          new MicrometerMetricsProvider(registry));

  /** The value of the one sample named exactly {@code series} (name plus labels). */
  private double sample(String series) {
    String text = registry.scrape();
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
    assertThat(m.find()).as("series %s in%n%s", series, text).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void publishesTheClientGoNamesLabelledByQueueName() {
    String text = registry.scrape();

    assertThat(text)
        .contains("workqueue_depth{name=\"deployment\"}")
        .contains("workqueue_adds_total{name=\"deployment\"}")
        .contains("workqueue_queue_duration_seconds_bucket{name=\"deployment\",le=")
        .contains("workqueue_queue_duration_seconds_count{name=\"deployment\"}")
        .contains("workqueue_queue_duration_seconds_sum{name=\"deployment\"}")
        .contains("workqueue_work_duration_seconds_bucket{name=\"deployment\",le=")
        .contains("workqueue_work_duration_seconds_count{name=\"deployment\"}")
        .contains("workqueue_unfinished_work_seconds{name=\"deployment\"}")
        .contains("workqueue_longest_running_processor_seconds{name=\"deployment\"}")
        .contains("workqueue_retries_total{name=\"deployment\"}")
        .contains("# TYPE workqueue_queue_duration_seconds histogram")
        .contains("# TYPE workqueue_work_duration_seconds histogram")
        .contains("# TYPE workqueue_depth gauge")
        .contains("# TYPE workqueue_adds_total counter")
        .contains("# TYPE workqueue_retries_total counter");
  }

  @Test
  void durationHistogramsHaveClientGoBuckets() {
    String text = registry.scrape();
    Matcher m =
        Pattern.compile("workqueue_work_duration_seconds_bucket\\{name=\"deployment\",le=\"([^\"]+)\"")
            .matcher(text);
    java.util.List<Double> bounds = new java.util.ArrayList<>();
    while (m.find()) {
      String le = m.group(1);
      bounds.add(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le));
    }

    assertThat(bounds)
        .containsExactly(
            1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, Double.POSITIVE_INFINITY);
  }

  @Test
  void countsAddsDepthAndQueueTime() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.add("a"); // collapsed: not an add
    assertThat(sample("workqueue_adds_total{name=\"deployment\"}")).isEqualTo(2.0);
    assertThat(sample("workqueue_depth{name=\"deployment\"}")).isEqualTo(2.0);

    clock.advance(Duration.ofSeconds(2));
    queue.get();

    assertThat(sample("workqueue_depth{name=\"deployment\"}")).isEqualTo(1.0);
    assertThat(sample("workqueue_queue_duration_seconds_count{name=\"deployment\"}"))
        .isEqualTo(1.0);
    assertThat(sample("workqueue_queue_duration_seconds_sum{name=\"deployment\"}"))
        .isEqualTo(2.0);
    assertThat(sample("workqueue_queue_duration_seconds_bucket{name=\"deployment\",le=\"1.0\"}"))
        .isEqualTo(0.0);
    assertThat(sample("workqueue_queue_duration_seconds_bucket{name=\"deployment\",le=\"10.0\"}"))
        .isEqualTo(1.0);
  }

  @Test
  void addWhileProcessingCountsTowardsDepth() throws Exception {
    queue.add("a");
    queue.get();
    queue.add("a");

    assertThat(sample("workqueue_depth{name=\"deployment\"}")).isEqualTo(1.0);
    assertThat(sample("workqueue_adds_total{name=\"deployment\"}")).isEqualTo(2.0);
  }

  @Test
  void measuresWorkInProgressAndWorkDuration() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.get();
    clock.advance(Duration.ofSeconds(1));
    queue.get();
    clock.advance(Duration.ofSeconds(3));

    assertThat(sample("workqueue_unfinished_work_seconds{name=\"deployment\"}")).isEqualTo(7.0);
    assertThat(sample("workqueue_longest_running_processor_seconds{name=\"deployment\"}"))
        .isEqualTo(4.0);

    queue.done("a");
    assertThat(sample("workqueue_work_duration_seconds_count{name=\"deployment\"}"))
        .isEqualTo(1.0);
    assertThat(sample("workqueue_work_duration_seconds_sum{name=\"deployment\"}"))
        .isEqualTo(4.0);
    assertThat(sample("workqueue_unfinished_work_seconds{name=\"deployment\"}")).isEqualTo(3.0);

    queue.done("b");
    assertThat(sample("workqueue_unfinished_work_seconds{name=\"deployment\"}")).isEqualTo(0.0);
    assertThat(sample("workqueue_longest_running_processor_seconds{name=\"deployment\"}"))
        .isEqualTo(0.0);
  }

  @Test
  void countsRetriesAndTimesDelayedItemsFromTheirReadyTime() throws Exception {
    queue.addRateLimited("a"); // 5 ms
    queue.addAfter("b", Duration.ofSeconds(1));
    queue.addAfter("c", Duration.ZERO);
    assertThat(sample("workqueue_retries_total{name=\"deployment\"}")).isEqualTo(3.0);
    assertThat(sample("workqueue_adds_total{name=\"deployment\"}")).isEqualTo(1.0);

    clock.advance(Duration.ofSeconds(3));
    assertThat(sample("workqueue_depth{name=\"deployment\"}")).isEqualTo(3.0);
    queue.get();
    queue.get();
    queue.get();

    // c waited 3 s, a 3 s - 5 ms, b 2 s
    assertThat(sample("workqueue_queue_duration_seconds_sum{name=\"deployment\"}"))
        .isCloseTo(7.995, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void unnamedQueuePublishesNothing() {
    PrometheusMeterRegistry other = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WorkQueue<String> unnamed =
        WorkQueues.newQueue("", clock, new MicrometerMetricsProvider(other));
    unnamed.add("a");

    assertThat(other.scrape()).doesNotContain("workqueue_");
  }

  @Test
  void durationBucketsAreTenPowersOfTenFromTenNanos() {
    assertThat(Arrays.stream(MicrometerMetricsProvider.DURATION_BUCKETS).mapToLong(Duration::toNanos))
        .containsExactly(
            10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
            1_000_000_000L, 10_000_000_000L);
  }
}
