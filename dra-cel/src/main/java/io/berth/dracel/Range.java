package io.berth.dracel;

/**
 * A range of CEL cost units or of sizes (string length, list or map entries), as cel-go's
 * {@code checker.CostEstimate} and {@code SizeEstimate}. Arithmetic saturates at
 * {@link #UNBOUNDED}, which stands for cel-go's {@code math.MaxUint64} (an unknown size, or a
 * cost no budget admits). Immutable.
 *
 * @param min the least value, at least 0
 * @param max the greatest value, at least {@code min} when both are known
 */
public record Range(long min, long max) {
  /** cel-go's {@code math.MaxUint64}: past every limit. */
  public static final long UNBOUNDED = Long.MAX_VALUE;
  static final Range ZERO = new Range(0, 0);
  static final Range ONE = new Range(1, 1);
  /** cel-go's {@code UnknownSizeEstimate}. */
  static final Range UNKNOWN = new Range(0, UNBOUNDED);

  static Range fixed(long value) {
    return new Range(value, value);
  }

  Range add(Range o) {
    return new Range(add(min, o.min), add(max, o.max));
  }

  Range multiply(Range o) {
    return new Range(multiply(min, o.min), multiply(max, o.max));
  }

  /** Each bound times {@code factor}, rounded up (cel-go's {@code MultiplyByCostFactor}). */
  Range multiplyByFactor(double factor) {
    return new Range(multiplyByFactor(min, factor), multiplyByFactor(max, factor));
  }

  Range union(Range o) {
    return new Range(Math.min(min, o.min), Math.max(max, o.max));
  }

  static long add(long a, long b) {
    return b > 0 && a > UNBOUNDED - b ? UNBOUNDED : a + b;
  }

  static long multiply(long a, long b) {
    return b != 0 && a > UNBOUNDED / b ? UNBOUNDED : a * b;
  }

  static long multiplyByFactor(long x, double factor) {
    if (x == UNBOUNDED && factor > 0) {
      return UNBOUNDED;
    }
    double r = Math.ceil(x * factor);
    return r >= UNBOUNDED ? UNBOUNDED : (long) r;
  }
}
