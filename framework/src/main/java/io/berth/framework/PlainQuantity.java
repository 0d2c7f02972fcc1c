package io.berth.framework;

import io.fabric8.kubernetes.api.model.Quantity;

/**
 * The integer conversion of a plain quantity: an amount of 1 to 18 ASCII digits and a format of "" or one of the
 * suffixes {@code n u m k M G T P E Ki Mi Gi Ti Pi}. For these, fabric8's {@link Quantity#getAmountInBytes} is
 * exact (the amount times a power of ten or of two that {@code MathContext.DECIMAL64} represents exactly), so the
 * value rounded up can be computed in {@code long}s with the same result, without the {@code BigDecimal} parsing,
 * multiplying and scaling that made quantity conversion a visible cost of every pod's arrival (and, in a fresh JVM,
 * of the JIT's work). {@code Ei} is left out because DECIMAL64 rounds 2^60; decimal points, exponents, signs and
 * overflow are left to the general path as well. Stateless and thread-safe.
 */
final class PlainQuantity {
  /** No plain conversion: the caller takes the general path. */
  static final long NOT_PLAIN = -1;

  private static final long[] POW10 = new long[19];

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
  }

  private PlainQuantity() {}

  /**
   * The quantity in milli-units ({@code milli}) or base units, rounded up; {@link #NOT_PLAIN} when it is not a
   * plain quantity or the result does not fit a {@code long}.
   */
  static long scaled(Quantity quantity, boolean milli) {
    if (quantity == null) {
      return NOT_PLAIN;
    }
    String amount = quantity.getAmount();
    String format = quantity.getFormat();
    if (amount == null || format == null) {
      return NOT_PLAIN;
    }
    long digits = digits(amount);
    if (digits < 0) {
      return NOT_PLAIN;
    }
    // the value is digits * 10^exp10 * 2^exp2; in milli-units, exp10 + 3
    int exp10;
    int exp2 = 0;
    switch (format) {
      case "" -> exp10 = 0;
      case "n" -> exp10 = -9;
      case "u" -> exp10 = -6;
      case "m" -> exp10 = -3;
      case "k" -> exp10 = 3;
      case "M" -> exp10 = 6;
      case "G" -> exp10 = 9;
      case "T" -> exp10 = 12;
      case "P" -> exp10 = 15;
      case "E" -> exp10 = 18;
      case "Ki" -> {
        exp10 = 0;
        exp2 = 10;
      }
      case "Mi" -> {
        exp10 = 0;
        exp2 = 20;
      }
      case "Gi" -> {
        exp10 = 0;
        exp2 = 30;
      }
      case "Ti" -> {
        exp10 = 0;
        exp2 = 40;
      }
      case "Pi" -> {
        exp10 = 0;
        exp2 = 50;
      }
      default -> {
        return NOT_PLAIN;
      }
    }
    if (milli) {
      exp10 += 3;
    }
    try {
      if (exp10 >= 0) {
        if (exp10 >= POW10.length) {
          return NOT_PLAIN;
        }
        long v = Math.multiplyExact(digits, POW10[exp10]);
        if (exp2 > 0) {
          if (Long.numberOfLeadingZeros(v) <= exp2) {
            return NOT_PLAIN;
          }
          v <<= exp2;
        }
        return v;
      }
      // a negative power of ten (no binary suffix has one): divide, rounding up
      long div = POW10[-exp10];
      return digits / div + (digits % div == 0 ? 0 : 1);
    } catch (ArithmeticException overflow) {
      return NOT_PLAIN;
    }
  }

  /** The amount's value when it is 1 to 18 ASCII digits, else -1. */
  private static long digits(String amount) {
    int n = amount.length();
    if (n == 0 || n > 18) {
      return -1;
    }
    long v = 0;
    for (int i = 0; i < n; i++) {
      char c = amount.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
