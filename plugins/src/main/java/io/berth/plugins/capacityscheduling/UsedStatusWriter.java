package io.berth.plugins.capacityscheduling;

import io.berth.framework.PluginMetrics;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings every ElasticQuota's {@code status.used} and the quota metrics up to date with the {@link QuotaBook}: for
 * each quota, the usage of the resources it limits is compared with the {@code status.used} last read and written
 * when different (so a restarted scheduler rewrites what it rebuilt from the bound pods, and a hand-edited value is
 * corrected); {@code berth_quota_used}, {@code berth_quota_min} and {@code berth_quota_max}
 * ({@code namespace}, {@code resource}; cores for cpu, else the base unit) are set, and removed with their quota.
 * Nothing is written before {@code synced} holds (the quotas and the pods have been listed), so a partial count never
 * reaches the API. A failed write is logged and retried on the next run. Confined to one timer thread.
 */
final class UsedStatusWriter implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(UsedStatusWriter.class);
  static final String USED = "berth_quota_used";
  static final String MIN = "berth_quota_min";
  static final String MAX = "berth_quota_max";

  /** Writes {@code status.used} of one quota (amounts as Kubernetes quantities). */
  @FunctionalInterface
  interface StatusPatcher {
    StatusPatcher NONE = (quota, used) -> { };

    void patchUsed(ElasticQuota quota, Map<String, String> used);
  }

  private final QuotaBook book;
  private final StatusPatcher patcher;
  private final PluginMetrics metrics;
  private final BooleanSupplier synced;
  // the gauges set in the previous run, by metric name and labels; confined to the timer thread
  private Set<List<Object>> gauges = new HashSet<>();

  UsedStatusWriter(QuotaBook book, StatusPatcher patcher, PluginMetrics metrics, BooleanSupplier synced) {
    this.book = book;
    this.patcher = patcher;
    this.metrics = metrics;
    this.synced = synced;
  }

  @Override
  public void run() {
    if (!synced.getAsBoolean()) {
      return;
    }
    Set<List<Object>> current = new HashSet<>();
    for (ElasticQuota q : book.effectiveQuotas()) {
      Map<String, Long> used = book.used(q.namespace());
      TreeSet<String> limited = new TreeSet<>(q.min().keySet());
      limited.addAll(q.max().keySet());
      Map<String, Long> desired = new LinkedHashMap<>();
      for (String r : limited) {
        desired.put(r, Amounts.get(used, r));
        gauge(current, USED, "Resources used by the pods of a namespace with an ElasticQuota.", q, r,
            Amounts.get(used, r));
        if (q.min().containsKey(r)) {
          gauge(current, MIN, "An ElasticQuota's guaranteed share (spec.min).", q, r, q.min().get(r));
        }
        if (q.max().containsKey(r)) {
          gauge(current, MAX, "An ElasticQuota's upper bound (spec.max).", q, r, q.max().get(r));
        }
      }
      if (!desired.equals(normalized(q.statusUsed(), limited))) {
        Map<String, String> quantities = new LinkedHashMap<>();
        desired.forEach((r, v) -> quantities.put(r, Amounts.format(r, v)));
        try {
          patcher.patchUsed(q, quantities);
          LOG.debug("ElasticQuota {}: status.used {}", q.key(), quantities);
        } catch (RuntimeException e) {
          LOG.warn("ElasticQuota {}: could not write status.used {}: {}", q.key(), quantities, e.toString());
        }
      }
    }
    for (List<Object> stale : gauges) {
      if (!current.contains(stale)) {
        @SuppressWarnings("unchecked")
        Map<String, String> labels = (Map<String, String>) stale.get(1);
        metrics.removeGauge((String) stale.get(0), labels);
      }
    }
    gauges = current;
  }

  private static Map<String, Long> normalized(Map<String, Long> statusUsed, Set<String> limited) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String r : limited) {
      if (!statusUsed.containsKey(r)) {
        return Map.of("missing " + r, -1L); // never equal: write
      }
      out.put(r, statusUsed.get(r));
    }
    return statusUsed.size() == limited.size() ? out : Map.of("extra", -1L);
  }

  private void gauge(Set<List<Object>> current, String name, String help, ElasticQuota q, String r, long v) {
    Map<String, String> labels = Map.of("namespace", q.namespace(), "resource", r);
    metrics.setGauge(name, help, labels, Amounts.metricValue(r, v));
    current.add(List.of(name, labels));
  }
}
