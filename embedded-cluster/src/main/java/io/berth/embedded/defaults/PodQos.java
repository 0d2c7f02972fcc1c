package io.berth.embedded.defaults;

import io.berth.embedded.server.QuantityAmounts;
import java.math.BigDecimal;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A pod's QoS class, as {@code ComputePodQOS} (pkg/apis/core/v1/helper/qos) computes it for
 * {@code status.qosClass} on create. Only cpu and memory count. A container is BestEffort when it
 * requests and limits neither, Guaranteed when requests equal limits for both and are non-zero, else
 * Burstable; the pod is Guaranteed or BestEffort when all its (init and regular) containers are, else
 * Burstable. Pod-level {@code spec.resources}, when set, decide alone (PodLevelResources, on by default
 * since 1.34). Call after requests were defaulted from limits. Stateless, thread-safe.
 */
final class PodQos {

  static final String GUARANTEED = "Guaranteed";
  static final String BURSTABLE = "Burstable";
  static final String BEST_EFFORT = "BestEffort";

  private static final List<String> QOS_RESOURCES = List.of("cpu", "memory");

  private PodQos() {}

  static String of(JsonNode podSpec) {
    JsonNode podResources = podSpec.get("resources");
    if (podResources != null && podResources.isObject()) {
      return resourceQos(podResources);
    }
    String podQos = null;
    for (String list : List.of("initContainers", "containers")) {
      for (JsonNode container : podSpec.path(list)) {
        String qos = resourceQos(container.path("resources"));
        if (qos.equals(BURSTABLE)) {
          return BURSTABLE;
        }
        if (podQos == null) {
          podQos = qos;
        } else if (!podQos.equals(qos)) {
          return BURSTABLE; // one BestEffort and one Guaranteed container
        }
      }
    }
    return podQos == null ? BEST_EFFORT : podQos;
  }

  private static String resourceQos(JsonNode resources) {
    JsonNode requests = resources.path("requests");
    JsonNode limits = resources.path("limits");
    if (requests.isEmpty() && limits.isEmpty()) {
      return BEST_EFFORT;
    }
    String qos = null;
    for (String resource : QOS_RESOURCES) {
      BigDecimal request = amount(requests.get(resource));
      BigDecimal limit = amount(limits.get(resource));
      if (request.compareTo(limit) != 0) {
        return BURSTABLE; // unequal, so at least one is set: neither Guaranteed nor BestEffort
      }
      boolean bestEffort = request.signum() == 0;
      if (qos == null) {
        qos = bestEffort ? BEST_EFFORT : GUARANTEED;
      } else if (bestEffort != qos.equals(BEST_EFFORT)) {
        return BURSTABLE;
      }
    }
    return qos;
  }

  /** A quantity's value; zero when unset or unparseable (validation rejects the latter). */
  private static BigDecimal amount(JsonNode quantity) {
    if (quantity == null || quantity.isNull()) {
      return BigDecimal.ZERO;
    }
    try {
      return QuantityAmounts.of(quantity.asString());
    } catch (RuntimeException e) {
      return BigDecimal.ZERO;
    }
  }
}
