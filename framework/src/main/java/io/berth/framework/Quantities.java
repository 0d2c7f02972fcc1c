package io.berth.framework;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Converts Kubernetes quantities to the integers the scheduler computes with, rounding up as
 * upstream's {@code MilliValue()}/{@code Value()} do. Stateless and thread-safe. A quantity that
 * cannot be parsed raises {@link IllegalArgumentException} naming {@code field}.
 *
 * <p>A plain quantity (digits and one of the usual suffixes, as nearly every request and allocatable is) is
 * converted in integer arithmetic by {@link PlainQuantity}, with the result fabric8's {@code BigDecimal} path gives;
 * anything else takes that path.
 */
public final class Quantities {
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);

  private Quantities() {}

  /** The quantity in milli-units (cpu), rounded up. */
  public static long milliValue(Quantity quantity, String field) {
    long plain = PlainQuantity.scaled(quantity, true);
    if (plain >= 0) {
      return plain;
    }
    return toLong(amount(quantity, field).multiply(THOUSAND), quantity, field);
  }

  /** The quantity in base units (bytes, count), rounded up. */
  public static long value(Quantity quantity, String field) {
    long plain = PlainQuantity.scaled(quantity, false);
    if (plain >= 0) {
      return plain;
    }
    return toLong(amount(quantity, field), quantity, field);
  }

  /** The amount of {@code resourceName} in the scheduler's units: milli for cpu, else base. */
  public static long forResource(String resourceName, Quantity quantity, String field) {
    return Resource.CPU.equals(resourceName) ? milliValue(quantity, field) : value(quantity, field);
  }

  private static BigDecimal amount(Quantity quantity, String field) {
    try {
      return Quantity.getAmountInBytes(quantity);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(field + ": quantity \"" + describe(quantity)
          + "\" is not a valid Kubernetes quantity", e);
    }
  }

  private static long toLong(BigDecimal amount, Quantity quantity, String field) {
    try {
      return amount.setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(field + ": quantity \"" + describe(quantity)
          + "\" is out of range", e);
    }
  }

  private static String describe(Quantity quantity) {
    return quantity == null ? "null"
        : quantity.getAmount() + (quantity.getFormat() == null ? "" : quantity.getFormat());
  }
}
