package io.berth.dracel;

import com.google.common.primitives.UnsignedLong;
import dev.cel.common.values.CelByteString;
import java.util.Objects;

/**
 * Comparison, addition and equality of CEL runtime values as cel-go's {@code traits.Comparer},
 * {@code traits.Adder} and {@code Equal} define them, for the Kubernetes {@code lists} library:
 * numbers across int, uint and double, bools (false first), strings by code point (Go compares
 * UTF-8 bytes, which orders the same), bytes unsigned, durations and timestamps (cel-java's
 * protobuf or {@code java.time} representations). Anything else is "no such overload". Stateless.
 */
final class CelValues {
  private CelValues() {
  }

  /** -1, 0 or 1. */
  static int compare(Object a, Object b) {
    if (ListsLibrary.isNumber(a) && ListsLibrary.isNumber(b)) {
      if (a instanceof Double x && x.isNaN() || b instanceof Double y && y.isNaN()) {
        throw new IllegalArgumentException("NaN values cannot be ordered");
      }
      return Integer.signum(ListsLibrary.decimal(a).compareTo(ListsLibrary.decimal(b)));
    }
    if (a instanceof Boolean x && b instanceof Boolean y) {
      return Boolean.compare(x, y);
    }
    if (a instanceof String x && b instanceof String y) {
      return Integer.signum(compareCodePoints(x, y));
    }
    if (ListsLibrary.isBytes(a) && ListsLibrary.isBytes(b)) {
      return Integer.signum(compareBytes(bytes(a), bytes(b)));
    }
    if (isDuration(a) && isDuration(b)) {
      return Integer.signum(duration(a).compareTo(duration(b)));
    }
    if (isTimestamp(a) && isTimestamp(b)) {
      return Integer.signum(instant(a).compareTo(instant(b)));
    }
    throw new IllegalArgumentException("no such overload");
  }

  /** {@code a + b} for the summable types; overflow is an error, as cel-go's. */
  static Object add(Object a, Object b) {
    if (a instanceof Long x && b instanceof Long y) {
      try {
        return Math.addExact(x, y);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException("integer overflow");
      }
    }
    if (a instanceof UnsignedLong x && b instanceof UnsignedLong y) {
      UnsignedLong s = x.plus(y);
      if (s.compareTo(x) < 0) {
        throw new IllegalArgumentException("unsigned integer overflow");
      }
      return s;
    }
    if (a instanceof Double x && b instanceof Double y) {
      return x + y;
    }
    if (isDuration(a) && isDuration(b)) {
      java.time.Duration s = duration(a).plus(duration(b));
      return a instanceof java.time.Duration ? s : com.google.protobuf.Duration.newBuilder()
          .setSeconds(s.getSeconds()).setNanos(s.getNano()).build();
    }
    throw new IllegalArgumentException("no such overload");
  }

  /** CEL equality: numbers across types by value, other values by {@code equals}. */
  static boolean equal(Object a, Object b) {
    if (ListsLibrary.isNumber(a) && ListsLibrary.isNumber(b)) {
      if (a instanceof Double x && x.isNaN() || b instanceof Double y && y.isNaN()) {
        return false;
      }
      return ListsLibrary.decimal(a).compareTo(ListsLibrary.decimal(b)) == 0;
    }
    return Objects.equals(a, b);
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  private static byte[] bytes(Object v) {
    return v instanceof CelByteString c ? c.toByteArray()
        : ((com.google.protobuf.ByteString) v).toByteArray();
  }

  private static int compareBytes(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      int c = Integer.compare(a[i] & 0xff, b[i] & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.length, b.length);
  }

  private static boolean isDuration(Object v) {
    return v instanceof java.time.Duration || v instanceof com.google.protobuf.Duration;
  }

  private static java.time.Duration duration(Object v) {
    if (v instanceof java.time.Duration d) {
      return d;
    }
    com.google.protobuf.Duration d = (com.google.protobuf.Duration) v;
    return java.time.Duration.ofSeconds(d.getSeconds(), d.getNanos());
  }

  private static boolean isTimestamp(Object v) {
    return v instanceof java.time.Instant || v instanceof com.google.protobuf.Timestamp;
  }

  private static java.time.Instant instant(Object v) {
    if (v instanceof java.time.Instant i) {
      return i;
    }
    com.google.protobuf.Timestamp t = (com.google.protobuf.Timestamp) v;
    return java.time.Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
