package io.berth.simulator.dashboard;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A pod's effective requests as the scheduler counts them (kube-scheduler's {@code computePodResourceRequest}): the
 * sum over containers, at least the largest init container, plus the pod overhead. Millicores for cpu, bytes for
 * memory. Stateless.
 */
final class Resources {

  private Resources() {
  }

  static long cpuMillis(Pod pod) {
    return request(pod, "cpu", new BigDecimal(1000));
  }

  static long memoryBytes(Pod pod) {
    return request(pod, "memory", BigDecimal.ONE);
  }

  static long amount(Map<String, Quantity> map, String resource, BigDecimal scale) {
    if (map == null || map.get(resource) == null) {
      return 0;
    }
    return Quantity.getAmountInBytes(map.get(resource)).multiply(scale).longValue();
  }

  private static long request(Pod pod, String resource, BigDecimal scale) {
    long sum = 0;
    for (Container c : pod.getSpec().getContainers()) {
      sum += c.getResources() == null ? 0 : amount(c.getResources().getRequests(), resource, scale);
    }
    if (pod.getSpec().getInitContainers() != null) {
      for (Container c : pod.getSpec().getInitContainers()) {
        sum = Math.max(sum, c.getResources() == null ? 0 : amount(c.getResources().getRequests(), resource, scale));
      }
    }
    return sum + amount(pod.getSpec().getOverhead(), resource, scale);
  }
}
