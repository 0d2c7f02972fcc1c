package io.berth.embedded.kubelet;

import io.berth.embedded.server.Json;
import io.berth.embedded.server.QuantityAmounts;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A pod's resource requests as the kubelet admits it: the sum over containers, at least each init container's
 * request (restartable init containers, i.e. sidecars, add to the sum), plus pod overhead. Values are in base units
 * (cores for cpu, bytes for memory). Stateless and thread-safe.
 */
final class PodRequests {

  private PodRequests() {
  }

  static Map<String, BigDecimal> of(JsonNode pod) {
    Map<String, BigDecimal> sum = new HashMap<>();
    JsonNode spec = pod.path("spec");
    JsonNode containers = Json.at(spec, "containers");
    if (containers != null) {
      for (JsonNode c : containers.values()) {
        add(sum, requests(c));
      }
    }
    JsonNode inits = Json.at(spec, "initContainers");
    if (inits != null) {
      Map<String, BigDecimal> sidecars = new HashMap<>();
      for (JsonNode c : inits.values()) {
        Map<String, BigDecimal> r = requests(c);
        if ("Always".equals(Json.text(c, "restartPolicy"))) {
          add(sidecars, r);
          add(sum, r);
        } else {
          // A regular init container runs alone, next to the sidecars started before it.
          Map<String, BigDecimal> during = new HashMap<>(sidecars);
          add(during, r);
          during.forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
        }
      }
    }
    JsonNode overhead = Json.at(spec, "overhead");
    if (overhead != null) {
      add(sum, quantities(overhead));
    }
    return sum;
  }

  private static Map<String, BigDecimal> requests(JsonNode container) {
    JsonNode requests = Json.at(container, "resources", "requests");
    if (requests == null) {
      // Limits stand in for missing requests, as API defaulting does.
      requests = Json.at(container, "resources", "limits");
    }
    return requests == null ? Map.of() : quantities(requests);
  }

  private static Map<String, BigDecimal> quantities(JsonNode map) {
    Map<String, BigDecimal> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      out.put(e.getKey(), amount(e.getValue().isString() ? e.getValue().stringValue() : e.getValue().toString()));
    }
    return out;
  }

  /** A quantity string ({@code 500m}, {@code 1Gi}) in base units. */
  static BigDecimal amount(String quantity) {
    return QuantityAmounts.of(quantity);
  }

  private static void add(Map<String, BigDecimal> into, Map<String, BigDecimal> more) {
    more.forEach((k, v) -> into.merge(k, v, BigDecimal::add));
  }
}
