package io.berth.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Reconcile metrics of the controllers, in the registry {@code /metrics} serves:
 * <ul>
 *   <li>{@code berth_controller_syncs_total{controller, result="success"|"error"}}: syncs finished, by outcome (a
 *   sync that throws is an error);</li>
 *   <li>{@code berth_controller_sync_duration_seconds{controller}}: a histogram of sync durations, buckets from
 *   1 ms doubling to about 16 s ({@code _bucket}, {@code _count}, {@code _sum}, plus Micrometer's {@code _max}).</li>
 * </ul>
 * Controllers wrap each sync of a key: {@code metrics.timeSync("replicaset", () -> syncReplicaSet(key))}; the
 * sync's own exception comes out unchanged. Obtain one from {@link ControllerContext#syncMetrics()} in the
 * controller's factory and keep it. Workqueue metrics are separate: {@link ControllerContext#queueMetrics()}.
 *
 * <p>Thread-safe: the per-controller meters are cached in a concurrent map; Micrometer meters are thread-safe.
 */
public final class ControllerMetrics {

  /** Micrometer name of {@code berth_controller_syncs_total}. */
  public static final String SYNCS = "berth.controller.syncs";
  /** Micrometer name of {@code berth_controller_sync_duration_seconds}. */
  public static final String SYNC_DURATION = "berth.controller.sync.duration";

  static final Duration[] DURATION_BUCKETS = durationBuckets();

  private final MeterRegistry registry;
  private final Map<String, SyncMeters> meters = new ConcurrentHashMap<>();

  public ControllerMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** A sync body; may throw anything, which {@link #timeSync} counts as an error and rethrows. */
  @FunctionalInterface
  public interface Sync<E extends Exception> {
    void run() throws E;
  }

  /**
   * Runs {@code sync}, recording its duration and outcome under {@code controller}.
   *
   * @throws E whatever {@code sync} throws, after counting it as an error
   */
  public <E extends Exception> void timeSync(String controller, Sync<E> sync) throws E {
    SyncMeters m = register(controller);
    long start = registry.config().clock().monotonicTime();
    boolean success = false;
    try {
      sync.run();
      success = true;
    } finally {
      m.duration().record(registry.config().clock().monotonicTime() - start, TimeUnit.NANOSECONDS);
      (success ? m.success() : m.error()).increment();
    }
  }

  /**
   * Registers {@code controller}'s meters at zero, so that they appear in {@code /metrics} before the first sync.
   * Idempotent. Returns the meters for tests.
   */
  SyncMeters register(String controller) {
    return meters.computeIfAbsent(controller, this::newMeters);
  }

  private SyncMeters newMeters(String controller) {
    Counter success = Counter.builder(SYNCS).description("Syncs finished by the controller, by result")
        .tag("controller", controller).tag("result", "success").register(registry);
    Counter error = Counter.builder(SYNCS).description("Syncs finished by the controller, by result")
        .tag("controller", controller).tag("result", "error").register(registry);
    Timer duration = Timer.builder(SYNC_DURATION).description("Duration of the controller's syncs")
        .tag("controller", controller).serviceLevelObjectives(DURATION_BUCKETS).register(registry);
    return new SyncMeters(success, error, duration);
  }

  /** One controller's meters. Immutable; the meters are thread-safe. */
  record SyncMeters(Counter success, Counter error, Timer duration) {
  }

  private static Duration[] durationBuckets() {
    Duration[] buckets = new Duration[15]; // 1 ms, 2 ms, 4 ms, ... 16.384 s
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = Duration.ofMillis(1L << i);
    }
    return buckets;
  }
}
