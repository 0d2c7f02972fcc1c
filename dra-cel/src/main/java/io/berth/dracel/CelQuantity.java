package io.berth.dracel;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;

/**
 * A Kubernetes quantity as CEL sees it (the {@code quantity(...)} type of the Kubernetes CEL
 * library): device capacities in selectors, compared with {@code compareTo},
 * {@code isGreaterThan}, {@code isLessThan}. Immutable.
 *
 * @param value the exact amount in base units
 */
public record CelQuantity(BigDecimal value) implements Comparable<CelQuantity> {
  /** Parses a quantity's text; the message of the failure is the Kubernetes library's. */
  public static CelQuantity parse(String text) {
    try {
      return new CelQuantity(Quantity.getAmountInBytes(new Quantity(text)));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("quantities must match the regular expression"
          + " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"" + text + "\"", e);
    }
  }

  /** The amount of a fabric8 quantity (a device's capacity). */
  public static CelQuantity of(Quantity q) {
    return new CelQuantity(Quantity.getAmountInBytes(q));
  }

  @Override
  public int compareTo(CelQuantity o) {
    return value.compareTo(o.value);
  }

  // quantities equal by amount ("1Gi" == "1024Mi"), as upstream's Quantity.Equal
  @Override
  public boolean equals(Object o) {
    return o instanceof CelQuantity q && value.compareTo(q.value) == 0;
  }

  @Override
  public int hashCode() {
    return value.stripTrailingZeros().hashCode();
  }
}
