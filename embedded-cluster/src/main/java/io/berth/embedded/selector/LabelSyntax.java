package io.berth.embedded.selector;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Label key and value syntax, as apimachinery's {@code validation.IsQualifiedName} and
 * {@code IsValidLabelValue} define it. Stateless, thread-safe.
 */
final class LabelSyntax {

  private static final int MAX_NAME_LENGTH = 63;
  private static final int MAX_PREFIX_LENGTH = 253;
  private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private LabelSyntax() {}

  /** Why {@code key} is not a legal label key, or empty when it is. */
  static Optional<String> validateKey(String key) {
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        return Optional.of("prefix part must be non-empty");
      }
      if (prefix.length() > MAX_PREFIX_LENGTH) {
        return Optional.of("prefix part must be no more than " + MAX_PREFIX_LENGTH + " characters");
      }
      if (!DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
        return Optional.of("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
            + " characters, '-' or '.', and must start and end with an alphanumeric character");
      }
    } else {
      return Optional.of("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must"
          + " start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'");
    }
    if (name.isEmpty()) {
      return Optional.of("name part must be non-empty");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      return Optional.of("name part must be no more than " + MAX_NAME_LENGTH + " characters");
    }
    if (!QUALIFIED_NAME.matcher(name).matches()) {
      return Optional.of("name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
          + " and end with an alphanumeric character");
    }
    return Optional.empty();
  }

  /** Why {@code value} is not a legal label value, or empty when it is. */
  static Optional<String> validateValue(String value) {
    if (value.length() > MAX_NAME_LENGTH) {
      return Optional.of("must be no more than " + MAX_NAME_LENGTH + " characters");
    }
    if (!LABEL_VALUE.matcher(value).matches()) {
      return Optional.of("a valid label must be an empty string or consist of alphanumeric characters, '-',"
          + " '_' or '.', and must start and end with an alphanumeric character");
    }
    return Optional.empty();
  }
}
