package io.berth.workqueue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Publishes queue metrics to a Micrometer {@link MeterRegistry} under client-go's names. In a
 * Prometheus registry they render exactly as kube-controller-manager's: {@code
 * workqueue_depth{name="..."}}, {@code workqueue_adds_total}, the histograms {@code
 * workqueue_queue_duration_seconds} and {@code workqueue_work_duration_seconds} (buckets 1e-8 s to
 * 10 s, ten powers of ten), the gauges {@code workqueue_unfinished_work_seconds} and {@code
 * workqueue_longest_running_processor_seconds}, and {@code workqueue_retries_total}, each labelled
 * {@code name}.
 *
 * <p>Thread-safe. Gauges read the queue's {@link QueueGauges} when the registry is collected
 * (client-go refreshes the two work-in-progress gauges every 500 ms instead). Queue names should be
 * unique per registry: Micrometer hands back the existing meters for a repeated name, so a second
 * queue of the same name would share counters and not have its own gauges.
 */
public final class MicrometerMetricsProvider implements MetricsProvider {

  /** Upper bounds of the two duration histograms, in seconds: 1e-8, 1e-7, ... 10. */
  static final Duration[] DURATION_BUCKETS = durationBuckets();

  private final MeterRegistry registry;

  /** A provider that registers every queue's meters in {@code registry}. */
  public MicrometerMetricsProvider(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public QueueMetrics newQueueMetrics(String name, QueueGauges gauges) {
    Gauge.builder("workqueue.depth", gauges, QueueGauges::depth)
        .description("Current depth of the workqueue")
        .tag("name", name)
        .register(registry);
    Gauge.builder(
            "workqueue.unfinished.work.seconds", gauges, QueueGauges::unfinishedWorkSeconds)
        .description(
            "Seconds of work in progress not yet observed by work_duration; large values"
                + " indicate stuck workers")
        .tag("name", name)
        .register(registry);
    Gauge.builder(
            "workqueue.longest.running.processor.seconds",
            gauges,
            QueueGauges::longestRunningProcessorSeconds)
        .description("Seconds the longest running processor of the workqueue has been running")
        .tag("name", name)
        .register(registry);
    Counter adds =
        Counter.builder("workqueue.adds")
            .description("Total number of adds handled by the workqueue")
            .tag("name", name)
            .register(registry);
    Counter retries =
        Counter.builder("workqueue.retries")
            .description("Total number of retries handled by the workqueue")
            .tag("name", name)
            .register(registry);
    Timer latency =
        Timer.builder("workqueue.queue.duration")
            .description("Seconds an item stays in the workqueue before being requested")
            .serviceLevelObjectives(DURATION_BUCKETS)
            .tag("name", name)
            .register(registry);
    Timer work =
        Timer.builder("workqueue.work.duration")
            .description("Seconds processing an item from the workqueue takes")
            .serviceLevelObjectives(DURATION_BUCKETS)
            .tag("name", name)
            .register(registry);
    return new MicrometerQueueMetrics(adds, retries, latency, work);
  }

  private static Duration[] durationBuckets() {
    Duration[] buckets = new Duration[10];
    long nanos = 10; // 1e-8 s
    for (int i = 0; i < buckets.length; i++, nanos *= 10) {
      buckets[i] = Duration.ofNanos(nanos);
    }
    return buckets;
  }

  /** One queue's push meters; immutable, the meters themselves are thread-safe. */
  private record MicrometerQueueMetrics(Counter adds, Counter retries, Timer latency, Timer work)
      implements QueueMetrics {

    @Override
    public void added() {
      adds.increment();
    }

    @Override
    public void queued(long nanos) {
      latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void worked(long nanos) {
      work.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void retried() {
      retries.increment();
    }
  }
}
