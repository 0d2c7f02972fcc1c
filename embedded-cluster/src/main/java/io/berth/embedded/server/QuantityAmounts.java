package io.berth.embedded.server;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The value of a resource quantity string ({@code 500m}, {@code 64Mi}, {@code 1e3}) in base units, as fabric8's
 * {@link Quantity#getAmountInBytes} computes it, remembered per string: a cluster's pods repeat a handful of
 * quantities, and parsing one (a {@code BigDecimal} and a power of the suffix's base) was a visible share of every
 * pod create (QoS class) and every pod the simulated kubelet admits. At most {@value #CAPACITY} strings are kept
 * (beyond that new ones are computed each time), so arbitrary input cannot grow it without bound.
 *
 * <p>Thread-safe: a concurrent map of immutable values.
 */
public final class QuantityAmounts {

  static final int CAPACITY = 4096;
  private static final ConcurrentHashMap<String, BigDecimal> AMOUNTS = new ConcurrentHashMap<>();

  private QuantityAmounts() {
  }

  /**
   * The amount {@code quantity} stands for.
   *
   * @throws IllegalArgumentException or another runtime exception, as {@link Quantity}, when it does not parse
   */
  public static BigDecimal of(String quantity) {
    BigDecimal known = AMOUNTS.get(quantity);
    if (known != null) {
      return known;
    }
    BigDecimal amount = Quantity.getAmountInBytes(new Quantity(quantity));
    if (AMOUNTS.size() < CAPACITY) {
      AMOUNTS.putIfAbsent(quantity, amount);
    }
    return amount;
  }
}
