package io.berth.framework;

import java.util.Map;

/**
 * Where a plugin exposes metrics of its own on the scheduler's {@code /metrics}, by Prometheus name
 * ({@code berth_quota_used}) and label values: gauges that the plugin sets and removes, and counters it adds to
 * ({@code name} without the {@code _total} suffix, which the exposition adds). A name keeps one set of label names.
 * Implementations are thread-safe; {@link #NOOP} discards.
 */
public interface PluginMetrics {
  /** Discards everything. */
  PluginMetrics NOOP = new PluginMetrics() {
    @Override
    public void setGauge(String name, String help, Map<String, String> labels, double value) {}

    @Override
    public void removeGauge(String name, Map<String, String> labels) {}

    @Override
    public void increment(String name, String help, Map<String, String> labels, double amount) {}
  };

  /** Sets the gauge {@code name{labels}} to {@code value}, creating it on first use. */
  void setGauge(String name, String help, Map<String, String> labels, double value);

  /** Removes the gauge {@code name{labels}} (its object is gone); unknown ones are ignored. */
  void removeGauge(String name, Map<String, String> labels);

  /** Adds {@code amount} to the counter {@code name{labels}}, creating it on first use. */
  void increment(String name, String help, Map<String, String> labels, double amount);
}
