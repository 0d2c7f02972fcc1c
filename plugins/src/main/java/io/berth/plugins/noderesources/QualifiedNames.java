package io.berth.plugins.noderesources;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Validates qualified names ({@code [prefix/]name}, the form of label keys and resource names) with
 * the rules and messages of apimachinery's {@code IsQualifiedName}. Stateless.
 */
final class QualifiedNames {
  private static final int NAME_MAX_LENGTH = 63;
  private static final int SUBDOMAIN_MAX_LENGTH = 253;
  private static final String NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final Pattern NAME = Pattern.compile(NAME_FORMAT);
  private static final String SUBDOMAIN_FORMAT =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
  private static final Pattern SUBDOMAIN = Pattern.compile(SUBDOMAIN_FORMAT);
  private static final String NAME_MESSAGE = "must consist of alphanumeric characters, '-', '_' or"
      + " '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or"
      + " 'my.name',  or '123-abc', regex used for validation is '" + NAME_FORMAT + "')";
  private static final String SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of"
      + " lower case alphanumeric characters, '-' or '.', and must start and end with an"
      + " alphanumeric character (e.g. 'example.com', regex used for validation is '"
      + SUBDOMAIN_FORMAT + "')";

  private QualifiedNames() {}

  /** The problems with {@code value} as a qualified name; empty when it is valid. */
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
        if (prefix.length() > SUBDOMAIN_MAX_LENGTH) {
          errors.add("prefix part must be no more than " + SUBDOMAIN_MAX_LENGTH + " characters");
        }
        if (!SUBDOMAIN.matcher(prefix).matches()) {
          errors.add("prefix part " + SUBDOMAIN_MESSAGE);
        }
      }
    } else {
      errors.add("a qualified name " + NAME_MESSAGE
          + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errors;
    }
    if (name.isEmpty()) {
      errors.add("name part must be non-empty");
    } else if (name.length() > NAME_MAX_LENGTH) {
      errors.add("name part must be no more than " + NAME_MAX_LENGTH + " characters");
    }
    if (!NAME.matcher(name).matches()) {
      errors.add("name part " + NAME_MESSAGE);
    }
    return errors;
  }
}
