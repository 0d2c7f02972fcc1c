package io.berth.plugins.dynamicresources.structured;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyRange;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * DRAConsumableCapacity's arithmetic (KEP-5075, beta and on by default in Kubernetes 1.36), as
 * upstream's allocator computes it for a device with {@code allowMultipleAllocations}: what one
 * request consumes of each of the device's capacities ({@link #consumption}: the requested
 * amount rounded up by the capacity's {@code requestPolicy} — to {@code validRange.min}, then to
 * the next {@code step} above it, or to the next of {@code validValues} — or, when the request
 * names none, the policy's {@code default}, else the whole capacity), whether that amount obeys
 * the policy, and whether it fits beside what other allocations consume ({@link #fits}).
 * Stateless.
 */
final class ConsumableCapacity {
  /** An amount of one capacity: its exact value and the quantity that reports it. */
  record Amount(BigDecimal value, Quantity quantity) {
    static Amount of(Quantity q) {
      return new Amount(Quantity.getAmountInBytes(q), q);
    }

    static Amount of(BigDecimal v) {
      return new Amount(v, new Quantity(v.stripTrailingZeros().toPlainString()));
    }
  }

  private ConsumableCapacity() {
  }

  /**
   * What a request consumes of each capacity of a device, or empty when the request names a
   * capacity the device does not have, or an amount its policy does not admit.
   */
  static Optional<Map<String, Amount>> consumption(Map<String, DeviceCapacity> capacity,
      Map<String, Quantity> requests) {
    Map<String, DeviceCapacity> caps = capacity == null ? Map.of() : capacity;
    if (requests != null) {
      for (String name : requests.keySet()) {
        if (!caps.containsKey(name)) {
          return Optional.empty(); // upstream: "some requested capacity has not been defined"
        }
      }
    }
    Map<String, Amount> out = new HashMap<>();
    for (Map.Entry<String, DeviceCapacity> e : caps.entrySet()) {
      if (e.getValue() == null || e.getValue().getValue() == null) {
        continue;
      }
      Quantity requested = requests == null ? null : requests.get(e.getKey());
      Amount consumed = consumed(requested, e.getValue());
      if (violates(consumed, e.getValue().getRequestPolicy())) {
        return Optional.empty();
      }
      out.put(e.getKey(), consumed);
    }
    return Optional.of(out);
  }

  /**
   * Whether {@code adding} fits each capacity beside {@code others} (other claims' allocations)
   * and {@code allocating} (this allocation's earlier requests).
   */
  static boolean fits(Map<String, DeviceCapacity> capacity, Map<String, Amount> adding,
      Map<String, BigDecimal> others, Map<String, BigDecimal> allocating) {
    for (Map.Entry<String, Amount> e : adding.entrySet()) {
      BigDecimal total = e.getValue().value();
      total = total.add(others.getOrDefault(e.getKey(), BigDecimal.ZERO));
      total = total.add(allocating.getOrDefault(e.getKey(), BigDecimal.ZERO));
      Quantity value = capacity.get(e.getKey()).getValue();
      if (value == null || total.compareTo(Quantity.getAmountInBytes(value)) > 0) {
        return false;
      }
    }
    return true;
  }

  // upstream's calculateConsumedCapacity
  private static Amount consumed(Quantity requested, DeviceCapacity capacity) {
    CapacityRequestPolicy policy = capacity.getRequestPolicy();
    if (requested == null) {
      if (policy != null && policy.getDefault() != null) {
        return Amount.of(policy.getDefault());
      }
      return Amount.of(capacity.getValue());
    }
    Amount req = Amount.of(requested);
    if (policy == null) {
      return req;
    }
    CapacityRequestPolicyRange range = policy.getValidRange();
    if (range != null && range.getMin() != null) {
      BigDecimal min = Quantity.getAmountInBytes(range.getMin());
      if (req.value().compareTo(min) < 0) {
        return Amount.of(range.getMin());
      }
      if (range.getStep() == null) {
        return req;
      }
      BigDecimal step = Quantity.getAmountInBytes(range.getStep());
      BigDecimal n = req.value().subtract(min).divide(step, 0, RoundingMode.CEILING);
      BigDecimal v = min.add(step.multiply(n));
      return v.compareTo(req.value()) == 0 ? req : Amount.of(v);
    }
    if (policy.getValidValues() != null) {
      for (Quantity valid : policy.getValidValues()) {
        if (req.value().compareTo(Quantity.getAmountInBytes(valid)) <= 0) {
          return Amount.of(valid);
        }
      }
    }
    return req;
  }

  // upstream's violatesPolicy
  private static boolean violates(Amount consumed, CapacityRequestPolicy policy) {
    if (policy == null) {
      return false;
    }
    if (policy.getDefault() != null
        && consumed.value().compareTo(Quantity.getAmountInBytes(policy.getDefault())) == 0) {
      return false;
    }
    CapacityRequestPolicyRange range = policy.getValidRange();
    if (range != null) {
      if (range.getMax() != null
          && consumed.value().compareTo(Quantity.getAmountInBytes(range.getMax())) > 0) {
        return true;
      }
      if (range.getStep() != null && range.getMin() != null) {
        BigDecimal off = consumed.value().subtract(Quantity.getAmountInBytes(range.getMin()));
        return off.remainder(Quantity.getAmountInBytes(range.getStep())).signum() != 0;
      }
      return false;
    }
    if (policy.getValidValues() != null && !policy.getValidValues().isEmpty()) {
      for (Quantity valid : policy.getValidValues()) {
        if (consumed.value().compareTo(Quantity.getAmountInBytes(valid)) == 0) {
          return false;
        }
      }
      return true;
    }
    return false;
  }
}
