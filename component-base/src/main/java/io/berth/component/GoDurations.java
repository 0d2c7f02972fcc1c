package io.berth.component;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Map;

/**
 * Go's duration syntax, which every Kubernetes daemon flag uses ({@code 15s}, {@code 1m30s}, {@code 500ms},
 * {@code 1.5h}): an optional sign, then one or more decimal numbers each followed by a unit {@code ns}, {@code us}
 * ({@code µs}), {@code ms}, {@code s}, {@code m} or {@code h}; {@code 0} alone needs no unit. Parsing follows
 * {@code time.ParseDuration}: fractions below a nanosecond are truncated and values beyond the range of a signed
 * 64-bit nanosecond count are rejected. Stateless and thread-safe.
 */
public final class GoDurations {

  private static final Map<String, Long> UNIT_NANOS = Map.of(
      "ns", 1L,
      "us", 1_000L,
      "\u00b5s", 1_000L, // micro sign
      "\u03bcs", 1_000L, // Greek mu
      "ms", 1_000_000L,
      "s", 1_000_000_000L,
      "m", 60_000_000_000L,
      "h", 3_600_000_000_000L);

  private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

  private GoDurations() {
  }

  /**
   * Parses {@code text} as Go's {@code time.ParseDuration} does.
   *
   * @throws IllegalArgumentException with a message quoting the text if it is not a duration
   */
  public static Duration parse(String text) {
    if (text == null || text.isEmpty()) {
      throw invalid(text);
    }
    int i = 0;
    boolean negative = false;
    if (text.charAt(0) == '-' || text.charAt(0) == '+') {
      negative = text.charAt(0) == '-';
      i++;
    }
    if (text.substring(i).equals("0")) {
      return Duration.ZERO;
    }
    if (i == text.length()) {
      throw invalid(text);
    }
    BigDecimal total = BigDecimal.ZERO;
    while (i < text.length()) {
      int numberStart = i;
      int digits = 0;
      while (i < text.length() && isDigit(text.charAt(i))) {
        i++;
        digits++;
      }
      if (i < text.length() && text.charAt(i) == '.') {
        i++;
        while (i < text.length() && isDigit(text.charAt(i))) {
          i++;
          digits++;
        }
      }
      if (digits == 0) {
        throw invalid(text);
      }
      BigDecimal number = new BigDecimal(normalize(text.substring(numberStart, i)));
      int unitStart = i;
      while (i < text.length() && !isDigit(text.charAt(i)) && text.charAt(i) != '.') {
        i++;
      }
      String unit = text.substring(unitStart, i);
      if (unit.isEmpty()) {
        throw new IllegalArgumentException("missing unit in duration \"" + text + "\"");
      }
      Long nanos = UNIT_NANOS.get(unit);
      if (nanos == null) {
        throw new IllegalArgumentException("unknown unit \"" + unit + "\" in duration \"" + text + "\"");
      }
      total = total.add(number.multiply(BigDecimal.valueOf(nanos)));
      if (total.compareTo(MAX_NANOS) > 0) {
        throw invalid(text);
      }
    }
    long nanos = total.setScale(0, RoundingMode.DOWN).longValueExact();
    return Duration.ofNanos(negative ? -nanos : nanos);
  }

  /**
   * Formats {@code duration} as Go's {@code Duration.String} does: {@code 1h2m3.5s}, {@code 1m30s}, {@code 15s},
   * {@code 500ms}, {@code 1.5µs}, {@code 0s}.
   */
  public static String format(Duration duration) {
    long nanos = duration.toNanos();
    if (nanos == 0) {
      return "0s";
    }
    String sign = nanos < 0 ? "-" : "";
    BigDecimal abs = BigDecimal.valueOf(nanos).abs();
    if (abs.compareTo(BigDecimal.valueOf(1_000_000_000L)) < 0) {
      String unit;
      long scale;
      if (abs.longValue() < 1_000L) {
        unit = "ns";
        scale = 1L;
      } else if (abs.longValue() < 1_000_000L) {
        unit = "\u00b5s";
        scale = 1_000L;
      } else {
        unit = "ms";
        scale = 1_000_000L;
      }
      return sign + decimal(abs, scale) + unit;
    }
    BigDecimal[] hours = abs.divideAndRemainder(BigDecimal.valueOf(3_600_000_000_000L));
    BigDecimal[] minutes = hours[1].divideAndRemainder(BigDecimal.valueOf(60_000_000_000L));
    StringBuilder sb = new StringBuilder(sign);
    if (hours[0].signum() > 0) {
      sb.append(hours[0].toPlainString()).append('h');
    }
    if (hours[0].signum() > 0 || minutes[0].signum() > 0) {
      sb.append(minutes[0].toPlainString()).append('m');
    }
    sb.append(decimal(minutes[1], 1_000_000_000L)).append('s');
    return sb.toString();
  }

  private static String decimal(BigDecimal nanos, long scale) {
    BigDecimal value = nanos.divide(BigDecimal.valueOf(scale));
    value = value.stripTrailingZeros();
    return value.scale() < 0 ? value.setScale(0).toPlainString() : value.toPlainString();
  }

  private static String normalize(String number) {
    // BigDecimal accepts "1." and ".5" but not "."; the caller ensured there is at least one digit.
    return number.endsWith(".") ? number + "0" : number;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException("invalid duration \"" + text + "\"");
  }
}
