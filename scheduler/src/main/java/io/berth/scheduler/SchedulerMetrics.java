package io.berth.scheduler;

import io.berth.framework.BatchMetrics;
import io.berth.framework.PreemptionMetrics;
import io.berth.framework.runtime.ExtensionPointMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * kube-scheduler's metrics, with upstream names and labels as Prometheus exposes them:
 * {@code scheduler_schedule_attempts_total{result,profile}},
 * {@code scheduler_scheduling_attempt_duration_seconds{result,profile}},
 * {@code scheduler_pending_pods{queue}},
 * {@code scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}},
 * {@code scheduler_pod_scheduling_sli_duration_seconds{attempts}},
 * {@code scheduler_pod_scheduling_attempts}, {@code scheduler_preemption_attempts_total},
 * {@code scheduler_preemption_victims},
 * {@code scheduler_preemption_goroutines_duration_seconds{result}},
 * {@code scheduler_preemption_goroutines_execution_total{result}},
 * {@code scheduler_batch_attempts_total{profile,result}},
 * {@code scheduler_batch_cache_flushed_total{profile,reason}},
 * {@code scheduler_get_node_hint_duration_seconds{hinted,profile}},
 * {@code scheduler_store_schedule_results_duration_seconds{profile}},
 * {@code scheduler_async_api_call_execution_total{call_type,result}},
 * {@code scheduler_async_api_call_execution_duration_seconds{call_type,result}},
 * {@code scheduler_pending_async_api_calls{call_type}} (the last three with
 * {@code SchedulerAsyncAPICalls} only). Thread-safe (Micrometer
 * meters are). The meters recorded on every scheduling cycle are registered once per label set and kept in a
 * concurrent map: building and registering a meter on each call (sorting its tags, looking it up in the registry)
 * was ~2% of a cycle's CPU and, on a cold JVM, among the largest C2 compilations.
 */
public final class SchedulerMetrics implements ExtensionPointMetrics, PreemptionMetrics,
    BatchMetrics, io.berth.framework.PluginMetrics,
    io.berth.scheduler.apidispatcher.ApiDispatcherMetrics {
  public static final String SCHEDULED = "scheduled";
  public static final String UNSCHEDULABLE = "unschedulable";
  public static final String ERROR = "error";

  private static final Duration[] ATTEMPT_BUCKETS = buckets(0.001, 2, 15);
  private static final Duration[] EXTENSION_BUCKETS = buckets(0.0001, 2, 12);
  private static final Duration[] SLI_BUCKETS = buckets(0.01, 2, 20);
  private static final Duration[] HINT_BUCKETS = buckets(0.00001, 2, 12);
  // the attempts label of the SLI histogram, "0" to "15" (15 and more count as 15)
  private static final String[] ATTEMPT_LABELS = new String[16];

  static {
    for (int i = 0; i < ATTEMPT_LABELS.length; i++) {
      ATTEMPT_LABELS[i] = String.valueOf(i);
    }
  }

  private final MeterRegistry registry;
  // plugin gauges by name and labels: the value each registered gauge reads; a concurrent map (one label set is set
  // and removed by one thread, the quota writer's timer)
  private final java.util.Map<java.util.List<Object>, java.util.concurrent.atomic.AtomicLong> pluginGauges =
      new java.util.concurrent.ConcurrentHashMap<>();

  // the per-cycle meters by name and label values, registered on first use; a concurrent map
  private final java.util.Map<MeterKey, Object> hot = new java.util.concurrent.ConcurrentHashMap<>();

  /** A meter's name and label values (null for absent ones). */
  private record MeterKey(String name, String a, String b, String c) { }

  public SchedulerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The meter under {@code key}, registered by {@code register} on first use. */
  @SuppressWarnings("unchecked")
  private <M> M hot(MeterKey key, java.util.function.Function<MeterKey, M> register) {
    Object m = hot.get(key);
    if (m == null) {
      m = hot.computeIfAbsent(key, register);
    }
    return (M) m;
  }

  /** Plugins' gauges: the value is kept as the bits of a double, read by the registered gauge. */
  @Override
  public void setGauge(String name, String help, java.util.Map<String, String> labels, double value) {
    pluginGauges.computeIfAbsent(java.util.List.of(name, labels), k -> {
      java.util.concurrent.atomic.AtomicLong bits = new java.util.concurrent.atomic.AtomicLong();
      Gauge.builder(name.replace('_', '.'), bits, b -> Double.longBitsToDouble(b.get())).description(help)
          .tags(tags(labels)).register(registry);
      return bits;
    }).set(Double.doubleToLongBits(value));
  }

  @Override
  public void removeGauge(String name, java.util.Map<String, String> labels) {
    if (pluginGauges.remove(java.util.List.of(name, labels)) != null) {
      io.micrometer.core.instrument.Meter gauge = registry.find(name.replace('_', '.')).tags(tags(labels)).gauge();
      if (gauge != null) {
        registry.remove(gauge);
      }
    }
  }

  @Override
  public void increment(String name, String help, java.util.Map<String, String> labels, double amount) {
    Counter.builder(name.replace('_', '.')).description(help).tags(tags(labels)).register(registry)
        .increment(amount);
  }

  private static java.util.List<io.micrometer.core.instrument.Tag> tags(java.util.Map<String, String> labels) {
    java.util.List<io.micrometer.core.instrument.Tag> out = new java.util.ArrayList<>(labels.size());
    labels.forEach((k, v) -> out.add(io.micrometer.core.instrument.Tag.of(k, v)));
    return out;
  }

  /** Registers {@code scheduler_pending_pods{queue}} gauges read from the queue. */
  public void registerPendingPods(String queue, Supplier<Number> size) {
    Gauge.builder("scheduler.pending.pods", size, s -> s.get().doubleValue())
        .description("Number of pending pods, by the queue type.")
        .tag("queue", queue).strongReference(true).register(registry);
  }

  /** One scheduling attempt ended with {@code result} after {@code nanos}. */
  public void attempt(String result, String profile, long nanos) {
    this.<Counter>hot(new MeterKey("scheduler.schedule.attempts", result, profile, null),
        k -> Counter.builder(k.name())
            .description("Number of attempts to schedule pods, by the result.")
            .tags("result", k.a(), "profile", k.b()).register(registry)).increment();
    this.<Timer>hot(new MeterKey("scheduler.scheduling.attempt.duration", result, profile, null),
        k -> Timer.builder(k.name())
            .description("Scheduling attempt latency in seconds (scheduling algorithm + binding)")
            .tags("result", k.a(), "profile", k.b()).serviceLevelObjectives(ATTEMPT_BUCKETS)
            .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * One group scheduling cycle ended with {@code result} ("scheduled", "unschedulable", "error")
   * after {@code nanos}: upstream's {@code scheduler_podgroup_schedule_attempts_total} and
   * {@code scheduler_podgroup_scheduling_attempt_duration_seconds}.
   */
  public void podGroupAttempt(String result, String profile, long nanos) {
    this.<Counter>hot(new MeterKey("scheduler.podgroup.schedule.attempts", result, profile, null),
        k -> Counter.builder(k.name())
            .description("Number of attempts to schedule pod group, by the result. 'unschedulable'"
                + " means a pod group could not be scheduled, while 'error' means an internal"
                + " scheduler problem.")
            .tags("result", k.a(), "profile", k.b()).register(registry)).increment();
    this.<Timer>hot(new MeterKey("scheduler.podgroup.scheduling.attempt.duration", result, profile,
        null), k -> Timer.builder(k.name())
            .description("Pod group scheduling attempt latency in seconds")
            .tags("result", k.a(), "profile", k.b()).serviceLevelObjectives(ATTEMPT_BUCKETS)
            .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
  }

  /** A pod was scheduled after {@code attempts} attempts, {@code sinceFirstAttempt} after its first. */
  public void podScheduled(int attempts, Duration sinceFirstAttempt) {
    this.<DistributionSummary>hot(new MeterKey("scheduler.pod.scheduling.attempts", null, null, null),
        k -> DistributionSummary.builder(k.name())
            .description("Number of attempts to successfully schedule a pod.")
            .serviceLevelObjectives(1, 2, 4, 8, 16).register(registry)).record(attempts);
    this.<Timer>hot(new MeterKey("scheduler.pod.scheduling.sli.duration",
        ATTEMPT_LABELS[Math.max(0, Math.min(attempts, 15))], null, null),
        k -> Timer.builder(k.name())
            .description("E2e latency for a pod being scheduled, from the time the pod enters the"
                + " scheduling queue and might involve multiple scheduling attempts.")
            .tag("attempts", k.a())
            .serviceLevelObjectives(SLI_BUCKETS).register(registry)).record(sinceFirstAttempt);
  }

  @Override
  public void observe(String point, String status, String profile, long nanos) {
    this.<Timer>hot(new MeterKey("scheduler.framework.extension.point.duration", point, status, profile),
        k -> Timer.builder(k.name())
            .description("Latency for running all plugins of a specific extension point.")
            .tags("extension_point", k.a(), "status", k.b(), "profile", k.c())
            .serviceLevelObjectives(EXTENSION_BUCKETS).register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void attempt() {
    Counter.builder("scheduler.preemption.attempts")
        .description("Total preemption attempts in the cluster till now")
        .register(registry).increment();
  }

  @Override
  public void victims(int count) {
    DistributionSummary.builder("scheduler.preemption.victims")
        .description("Number of selected preemption victims")
        .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64).register(registry).record(count);
  }

  @Override
  public void asyncPreparation(boolean succeeded, long nanos) {
    String result = succeeded ? "success" : "error";
    Timer.builder("scheduler.preemption.goroutines.duration")
        .description("Duration in seconds for running goroutines for the preemption.")
        .tag("result", result).serviceLevelObjectives(SLI_BUCKETS).register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    Counter.builder("scheduler.preemption.goroutines.execution")
        .description("Number of preemption goroutines executed.")
        .tag("result", result).register(registry).increment();
  }

  @Override
  public void batchAttempt(String profile, String result) {
    this.<Counter>hot(new MeterKey("scheduler.batch.attempts", profile, result, null),
        k -> Counter.builder(k.name())
            .description("Counts of results when we attempt to use batching.")
            .tags("profile", k.a(), "result", k.b()).register(registry)).increment();
  }

  @Override
  public void batchCacheFlushed(String profile, String reason) {
    this.<Counter>hot(new MeterKey("scheduler.batch.cache.flushed", profile, reason, null),
        k -> Counter.builder(k.name())
            .description("Counts of cache flushes by reason.")
            .tags("profile", k.a(), "reason", k.b()).register(registry)).increment();
  }

  @Override
  public void nodeHintDuration(boolean hinted, String profile, long nanos) {
    this.<Timer>hot(new MeterKey("scheduler.get.node.hint.duration", hinted ? "hint" : "no_hint",
        profile, null),
        k -> Timer.builder(k.name())
            .description("Latency for getting a node hint.")
            .tags("hinted", k.a(), "profile", k.b())
            .serviceLevelObjectives(HINT_BUCKETS).register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void storeScheduleResultsDuration(String profile, long nanos) {
    this.<Timer>hot(new MeterKey("scheduler.store.schedule.results.duration", profile, null, null),
        k -> Timer.builder(k.name())
            .description("Latency for storing the results of a scheduling cycle for batching.")
            .tags("profile", k.a()).serviceLevelObjectives(HINT_BUCKETS).register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void executed(String callType, String result, long nanos) {
    this.<Counter>hot(new MeterKey("scheduler.async.api.call.execution", callType, result, null),
        k -> Counter.builder(k.name())
            .description("Total number of API calls executed by the async dispatcher.")
            .tags("call_type", k.a(), "result", k.b()).register(registry)).increment();
    this.<Timer>hot(new MeterKey("scheduler.async.api.call.execution.duration", callType, result,
        null), k -> Timer.builder(k.name())
            .description("Duration in seconds for executing API call in the async dispatcher.")
            .tags("call_type", k.a(), "result", k.b()).serviceLevelObjectives(ATTEMPT_BUCKETS)
            .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void registerPendingCalls(String callType, Supplier<Number> pending) {
    // a strong reference: the registry would otherwise let the lambda be collected (NaN)
    Gauge.builder("scheduler.pending.async.api.calls", pending, s -> s.get().doubleValue())
        .description("Number of API calls currently pending in the async queue.")
        .tag("call_type", callType).strongReference(true).register(registry);
  }

  /** A pod entered a queue because of an event: {@code scheduler_queue_incoming_pods_total}. */
  public void incomingPod(String queue, String event) {
    this.<Counter>hot(new MeterKey("scheduler.queue.incoming.pods", queue, event, null),
        k -> Counter.builder(k.name())
            .description("Number of pods added to scheduling queues by event and queue type.")
            .tags("queue", k.a(), "event", k.b()).register(registry)).increment();
  }

  private static Duration[] buckets(double startSeconds, double factor, int count) {
    Duration[] out = new Duration[count];
    double v = startSeconds;
    for (int i = 0; i < count; i++) {
      out[i] = Duration.ofNanos((long) (v * 1e9));
      v *= factor;
    }
    return out;
  }
}
