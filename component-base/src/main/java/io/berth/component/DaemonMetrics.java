package io.berth.component;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The registry a daemon's {@code /metrics} serves, with the JVM and process meters every daemon exposes (memory,
 * threads, GC, class loading, CPU, uptime: Micrometer's counterparts of the Go runtime and process collectors of
 * the Kubernetes components). The daemon owns it and closes it last. Thread-safe (Micrometer registries are).
 */
final class DaemonMetrics implements AutoCloseable {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();

  DaemonMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    gc.bindTo(registry);
  }

  PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Unregisters the GC listeners and closes the registry. */
  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
