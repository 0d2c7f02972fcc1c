package io.berth.embedded.server;

/**
 * RFC 1123 names as kube-apiserver's {@code IsDNS1123Label} and {@code IsDNS1123Subdomain} accept them (without the
 * length limits, which callers check): a label is lower-case letters, digits and '-', starting and ending with a
 * letter or digit; a subdomain is labels joined by '.'. Checked character by character, the same language as the
 * patterns {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?} and that pattern followed by {@code (\.<label>)*}, without a
 * regular-expression match per object name. Stateless and thread-safe.
 */
final class DnsNames {

  private DnsNames() {
  }

  /** Whether {@code name} is an RFC 1123 label (any length). */
  static boolean isLabel(String name) {
    return isLabel(name, 0, name.length());
  }

  /** Whether {@code name} is an RFC 1123 subdomain (any length). */
  static boolean isSubdomain(String name) {
    int start = 0;
    while (true) {
      int dot = name.indexOf('.', start);
      int end = dot < 0 ? name.length() : dot;
      if (!isLabel(name, start, end)) {
        return false;
      }
      if (dot < 0) {
        return true;
      }
      start = dot + 1;
    }
  }

  private static boolean isLabel(String s, int from, int to) {
    if (from >= to || !alphanumeric(s.charAt(from)) || !alphanumeric(s.charAt(to - 1))) {
      return false;
    }
    for (int i = from + 1; i < to - 1; i++) {
      char c = s.charAt(i);
      if (c != '-' && !alphanumeric(c)) {
        return false;
      }
    }
    return true;
  }

  private static boolean alphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
