package io.berth.dracel;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A semantic version as CEL sees it (the {@code Semver} type of the Kubernetes {@code semver}
 * library, which DRA's {@code version} device attributes have): parsed strictly as Semantic
 * Versioning 2.0.0 with the rules and messages of the Go library upstream uses
 * ({@code blang/semver/v4}), or with upstream's normalization (a leading {@code v} dropped,
 * missing minor and patch numbers filled with 0, leading zeros removed). Ordered as that library
 * orders versions (build metadata ignored, a pre-release below its release); equal when that order
 * says so, as upstream's {@code ==}. Immutable.
 *
 * @param major the major number
 * @param minor the minor number
 * @param patch the patch number
 * @param pre the pre-release identifiers, each a {@link BigInteger} (numeric) or a String
 * @param build the build metadata identifiers
 */
public record CelSemver(long major, long minor, long patch, List<Object> pre, List<String> build)
    implements Comparable<CelSemver> {
  private static final BigInteger MAX_UINT64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  public CelSemver {
    pre = List.copyOf(pre);
    build = List.copyOf(build);
  }

  /**
   * Parses {@code text} strictly, as upstream's {@code semver(...)}.
   *
   * @throws IllegalArgumentException with the Go library's message
   */
  public static CelSemver parse(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("Version string empty");
    }
    String[] parts = text.split("\\.", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException("No Major.Minor.Patch elements found");
    }
    long major = number(parts[0], "major", "Major");
    long minor = number(parts[1], "minor", "Minor");
    String patchText = parts[2];
    List<String> build = new ArrayList<>();
    List<String> preText = new ArrayList<>();
    int plus = patchText.indexOf('+');
    if (plus >= 0) {
      build.addAll(List.of(patchText.substring(plus + 1).split("\\.", -1)));
      patchText = patchText.substring(0, plus);
    }
    int dash = patchText.indexOf('-');
    if (dash >= 0) {
      preText.addAll(List.of(patchText.substring(dash + 1).split("\\.", -1)));
      patchText = patchText.substring(0, dash);
    }
    long patch = number(patchText, "patch", "Patch");
    List<Object> pre = new ArrayList<>(preText.size());
    for (String p : preText) {
      pre.add(preRelease(p));
    }
    for (String b : build) {
      if (b.isEmpty()) {
        throw new IllegalArgumentException("Build meta data is empty");
      }
      if (!onlyAlphanumeric(b)) {
        throw new IllegalArgumentException(
            "Invalid character(s) found in build meta data " + goQuote(b));
      }
    }
    return new CelSemver(major, minor, patch, pre, build);
  }

  /**
   * Parses {@code text} after upstream's normalization ({@code semver(text, true)}).
   *
   * @throws IllegalArgumentException with upstream's message
   */
  public static CelSemver parseNormalized(String text) {
    String s = text.startsWith("v") ? text.substring(1) : text;
    List<String> parts = new ArrayList<>(List.of(s.split("\\.", 3)));
    for (int i = 0; i < parts.size(); i++) {
      String p = parts.get(i);
      if (p.length() > 1) {
        int z = 0;
        while (z < p.length() && p.charAt(z) == '0') {
          z++;
        }
        p = p.substring(z);
        if (p.isEmpty() || p.charAt(0) < '0' || p.charAt(0) > '9') {
          p = "0" + p;
        }
        parts.set(i, p);
      }
    }
    if (parts.size() < 3) {
      String last = parts.get(parts.size() - 1);
      if (last.indexOf('+') >= 0 || last.indexOf('-') >= 0) {
        throw new IllegalArgumentException("short version cannot contain PreRelease/Build meta data");
      }
      while (parts.size() < 3) {
        parts.add("0");
      }
    }
    return parse(String.join(".", parts));
  }

  /** Whether {@code text} parses ({@code isSemver(text, normalize)}). */
  public static boolean isValid(String text, boolean normalize) {
    try {
      if (normalize) {
        parseNormalized(text);
      } else {
        parse(text);
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static long number(String s, String lower, String capitalized) {
    if (!onlyDigits(s)) {
      throw new IllegalArgumentException(
          "Invalid character(s) found in " + lower + " number " + goQuote(s));
    }
    if (s.length() > 1 && s.charAt(0) == '0') {
      throw new IllegalArgumentException(
          capitalized + " number must not contain leading zeroes " + goQuote(s));
    }
    return parseUint64(s);
  }

  private static Object preRelease(String s) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("Prerelease is empty");
    }
    if (onlyDigits(s)) {
      if (s.length() > 1 && s.charAt(0) == '0') {
        throw new IllegalArgumentException(
            "Numeric PreRelease version must not contain leading zeroes " + goQuote(s));
      }
      return BigInteger.valueOf(parseUint64(s)).and(MAX_UINT64);
    }
    if (onlyAlphanumeric(s)) {
      return s;
    }
    throw new IllegalArgumentException("Invalid character(s) found in prerelease " + goQuote(s));
  }

  // strconv.ParseUint(s, 10, 64), kept in a long's 64 bits (compared unsigned)
  private static long parseUint64(String s) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("strconv.ParseUint: parsing \"\": invalid syntax");
    }
    BigInteger v = new BigInteger(s);
    if (v.compareTo(MAX_UINT64) > 0) {
      throw new IllegalArgumentException(
          "strconv.ParseUint: parsing " + goQuote(s) + ": value out of range");
    }
    return v.longValue();
  }

  private static boolean onlyDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static boolean onlyAlphanumeric(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static String goQuote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** -1, 0 or 1, as the Go library's {@code Compare}. */
  @Override
  public int compareTo(CelSemver o) {
    int c = Long.compareUnsigned(major, o.major);
    if (c == 0) {
      c = Long.compareUnsigned(minor, o.minor);
    }
    if (c == 0) {
      c = Long.compareUnsigned(patch, o.patch);
    }
    if (c != 0) {
      return Integer.signum(c);
    }
    if (pre.isEmpty() || o.pre.isEmpty()) {
      // a release is above its pre-releases
      return pre.isEmpty() == o.pre.isEmpty() ? 0 : pre.isEmpty() ? 1 : -1;
    }
    for (int i = 0; i < pre.size() && i < o.pre.size(); i++) {
      c = comparePre(pre.get(i), o.pre.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.signum(Integer.compare(pre.size(), o.pre.size()));
  }

  // numeric identifiers are below alphanumeric ones, as Semantic Versioning orders them
  private static int comparePre(Object a, Object b) {
    if (a instanceof BigInteger x && b instanceof BigInteger y) {
      return Integer.signum(x.compareTo(y));
    }
    if (a instanceof BigInteger) {
      return -1;
    }
    if (b instanceof BigInteger) {
      return 1;
    }
    return Integer.signum(((String) a).compareTo((String) b));
  }

  // equal by precedence, as upstream's Semver.Equal (build metadata does not count)
  @Override
  public boolean equals(Object o) {
    return o instanceof CelSemver v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(major, minor, patch, pre);
  }

  /** The canonical text, as the Go library's {@code String}. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    b.append(Long.toUnsignedString(major)).append('.').append(Long.toUnsignedString(minor))
        .append('.').append(Long.toUnsignedString(patch));
    if (!pre.isEmpty()) {
      b.append('-');
      for (int i = 0; i < pre.size(); i++) {
        b.append(i == 0 ? "" : ".").append(pre.get(i));
      }
    }
    if (!build.isEmpty()) {
      b.append('+').append(String.join(".", build));
    }
    return b.toString();
  }
}
