package io.berth.plugins.capacityscheduling;

import io.berth.framework.PodRequests;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;

/**
 * Resource vectors as maps from resource name to amount in the scheduler's units (milli-CPU, bytes, counts), the
 * shape ElasticQuota's ResourceLists have: a pod's requests (with {@code pods: 1}), sums and differences, and
 * Kubernetes-style rendering. Stateless; the maps it returns are new and owned by the caller.
 */
final class Amounts {
  private Amounts() {}

  /** The pod's requests as kube-scheduler computes them, plus {@code pods: 1}; zero amounts left out. */
  static Map<String, Long> requestsOf(Pod pod) {
    Resource r = PodRequests.of(pod);
    Map<String, Long> out = new HashMap<>(4 + r.scalarResources().size());
    putPositive(out, Resource.CPU, r.milliCpu());
    putPositive(out, Resource.MEMORY, r.memory());
    putPositive(out, Resource.EPHEMERAL_STORAGE, r.ephemeralStorage());
    r.scalarResources().forEach((k, v) -> putPositive(out, k, v));
    out.put(Resource.PODS, 1L);
    return out;
  }

  private static void putPositive(Map<String, Long> m, String k, long v) {
    if (v > 0) {
      m.put(k, v);
    }
  }

  /** Adds {@code b} into {@code a} (times {@code sign}, +1 or -1), dropping entries that reach zero. */
  static void addInto(Map<String, Long> a, Map<String, Long> b, int sign) {
    for (Map.Entry<String, Long> e : b.entrySet()) {
      long v = a.getOrDefault(e.getKey(), 0L) + sign * e.getValue();
      if (v == 0) {
        a.remove(e.getKey());
      } else {
        a.put(e.getKey(), v);
      }
    }
  }

  static long get(Map<String, Long> m, String k) {
    Long v = m.get(k);
    return v == null ? 0 : v;
  }

  /** cpu in cores (milli when fractional), others as plain counts of their base unit, as a Quantity string. */
  static String format(String resource, long amount) {
    if (resource.equals(Resource.CPU)) {
      return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
    }
    return Long.toString(amount);
  }

  /** The amount as a metric value in base units: cores for cpu, else the unit itself. */
  static double metricValue(String resource, long amount) {
    return resource.equals(Resource.CPU) ? amount / 1000.0 : amount;
  }
}
