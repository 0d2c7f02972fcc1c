package io.berth.scheduler.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Go's duration text ({@code time.ParseDuration} / {@code Duration.String}), the form
 * {@code metav1.Duration} fields such as {@code leaderElection.leaseDuration} take in component
 * config: an optional sign, then one or more decimal numbers each followed by a unit
 * ({@code ns}, {@code us}/{@code µs}, {@code ms}, {@code s}, {@code m}, {@code h}), e.g.
 * {@code "15s"}, {@code "1m30s"}, {@code "1.5h"}; a lone {@code "0"} needs no unit. Stateless.
 */
final class GoDuration {
  private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);
  private static final Map<String, Long> UNIT_NANOS = Map.of(
      "ns", 1L,
      "us", 1_000L,
      "\u00b5s", 1_000L, // micro sign
      "\u03bcs", 1_000L, // Greek mu
      "ms", 1_000_000L,
      "s", 1_000_000_000L,
      "m", 60_000_000_000L,
      "h", 3_600_000_000_000L);
  private static final BigInteger MAX_NANOS = BigInteger.valueOf(Long.MAX_VALUE);

  private GoDuration() {}

  /** Parses {@code text}; empty when it is not a Go duration or overflows int64 nanoseconds. */
  static Optional<Duration> parse(String text) {
    String s = text;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      negative = s.charAt(0) == '-';
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Optional.of(Duration.ZERO);
    }
    if (s.isEmpty()) {
      return Optional.empty();
    }
    BigDecimal total = BigDecimal.ZERO;
    int i = 0;
    while (i < s.length()) {
      int start = i;
      while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
        i++;
      }
      String number = s.substring(start, i);
      int unitStart = i;
      while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
        i++;
      }
      Long unit = UNIT_NANOS.get(s.substring(unitStart, i));
      if (unit == null || !validNumber(number)) {
        return Optional.empty();
      }
      total = total.add(new BigDecimal(normalize(number)).multiply(BigDecimal.valueOf(unit)));
    }
    // Go truncates fractions of a nanosecond.
    BigInteger nanos = total.toBigInteger();
    if (nanos.compareTo(MAX_NANOS) > 0) {
      return Optional.empty();
    }
    long value = nanos.longValueExact();
    return Optional.of(Duration.ofNanos(negative ? -value : value));
  }

  /** Formats like Go's {@code Duration.String()}: "0s", "500ms", "15s", "1m30s", "1h0m0s". */
  static String format(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    String sign = duration.isNegative() ? "-" : "";
    BigInteger nanos = BigInteger.valueOf(duration.getSeconds())
        .multiply(BigInteger.valueOf(1_000_000_000L))
        .add(BigInteger.valueOf(duration.getNano()))
        .abs();
    if (nanos.compareTo(BigInteger.valueOf(1_000_000_000L)) < 0) {
      long n = nanos.longValueExact();
      if (n < 1_000L) {
        return sign + n + "ns";
      }
      if (n < 1_000_000L) {
        return sign + decimal(n, 1_000L) + "\u00b5s";
      }
      return sign + decimal(n, 1_000_000L) + "ms";
    }
    BigInteger[] minutesAndRest = nanos.divideAndRemainder(BigInteger.valueOf(60_000_000_000L));
    long minutes = minutesAndRest[0].longValueExact();
    String seconds = new BigDecimal(minutesAndRest[1]).divide(NANOS_PER_SECOND)
        .stripTrailingZeros().toPlainString() + "s";
    if (minutes == 0) {
      return sign + seconds;
    }
    long hours = minutes / 60;
    String minutePart = (minutes % 60) + "m";
    return sign + (hours > 0 ? hours + "h" : "") + minutePart + seconds;
  }

  private static String decimal(long value, long unit) {
    return BigDecimal.valueOf(value).divide(BigDecimal.valueOf(unit)).stripTrailingZeros()
        .toPlainString();
  }

  /** Go accepts "1.", ".5" and "1.5", but not "." or a second point. */
  private static boolean validNumber(String number) {
    int point = number.indexOf('.');
    return !number.isEmpty()
        && !number.equals(".")
        && (point < 0 || number.indexOf('.', point + 1) < 0);
  }

  private static String normalize(String number) {
    String n = number.startsWith(".") ? "0" + number : number;
    return n.endsWith(".") ? n + "0" : n;
  }
}
