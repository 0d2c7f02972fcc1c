package io.berth.plugins.podtopologyspread;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Label key validation with apimachinery's {@code IsQualifiedName} rules and messages: an optional
 * DNS-1123 subdomain prefix and '/', then a name of at most 63 alphanumeric, '-', '_' or '.'
 * characters starting and ending alphanumeric. Stateless.
 */
final class QualifiedNames {
  private static final String NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final Pattern NAME = Pattern.compile("^" + NAME_FMT + "$");
  private static final String NAME_MSG = "must consist of alphanumeric characters, '-', '_' or"
      + " '.', and must start and end with an alphanumeric character (e.g. 'MyName', or"
      + " 'my.name', or '123-abc', regex used for validation is '" + NAME_FMT + "')";
  private static final String SUBDOMAIN_FMT =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
  private static final Pattern SUBDOMAIN = Pattern.compile("^" + SUBDOMAIN_FMT + "$");

  private QualifiedNames() {}

  /** The problems with {@code value} as a label key; empty when it is valid. */
  static List<String> validate(String value) {
    List<String> errors = new ArrayList<>();
    String[] parts = value.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        errors.add("prefix part must be non-empty");
      } else {
        if (prefix.length() > 253) {
          errors.add("prefix part must be no more than 253 characters");
        }
        if (!SUBDOMAIN.matcher(prefix).matches()) {
          errors.add("prefix part a lowercase RFC 1123 subdomain must consist of lower case"
              + " alphanumeric characters, '-' or '.', and must start and end with an"
              + " alphanumeric character (e.g. 'example.com', regex used for validation is '"
              + SUBDOMAIN_FMT + "')");
        }
      }
    } else {
      errors.add("a qualified name " + NAME_MSG + " with an optional DNS subdomain prefix and '/'"
          + " (e.g. 'example.com/MyName')");
      return errors;
    }
    if (name.isEmpty()) {
      errors.add("name part must be non-empty");
    } else if (name.length() > 63) {
      errors.add("name part must be no more than 63 characters");
    }
    if (!NAME.matcher(name).matches()) {
      errors.add("name part " + NAME_MSG);
    }
    return errors;
  }
}
