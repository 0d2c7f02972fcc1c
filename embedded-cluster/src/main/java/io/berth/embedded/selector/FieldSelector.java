package io.berth.embedded.selector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A field selector as kube-apiserver parses {@code fieldSelector=} (apimachinery's
 * {@code fields.ParseSelector}): comma-separated {@code field=value}, {@code field==value} or
 * {@code field!=value} terms, ANDed. Values may be empty; {@code \,} {@code \=} and {@code \\} escape
 * those characters in a value, and an unescaped {@code ,} or {@code =} inside a value is an error. No
 * whitespace is trimmed (upstream does not either: {@code "a = b"} selects the field {@code "a "}).
 *
 * <p>Which fields a resource supports is {@link FieldLabels}' business; this class only parses and
 * evaluates. Malformed input raises {@link IllegalArgumentException} naming the offending term (the
 * server answers 400). Instances are immutable and thread-safe.
 */
public final class FieldSelector {

  private static final FieldSelector EVERYTHING = new FieldSelector(List.of());

  private final List<FieldRequirement> requirements; // immutable, in sorted-term order as upstream

  private FieldSelector(List<FieldRequirement> requirements) {
    this.requirements = List.copyOf(requirements);
  }

  /** The selector that matches every object (the empty query string). */
  public static FieldSelector everything() {
    return EVERYTHING;
  }

  /** A selector that is the AND of the given terms. */
  public static FieldSelector of(List<FieldRequirement> requirements) {
    return requirements.isEmpty() ? EVERYTHING : new FieldSelector(requirements);
  }

  /**
   * Parses the query-string form, e.g. {@code spec.nodeName=,status.phase!=Failed}.
   *
   * @throws IllegalArgumentException if a term has no operator or a value has a bad escape
   */
  public static FieldSelector parse(String selector) {
    Objects.requireNonNull(selector, "selector");
    List<String> terms = splitTerms(selector);
    Collections.sort(terms); // upstream sorts the raw terms before parsing them
    List<FieldRequirement> requirements = new ArrayList<>();
    for (String term : terms) {
      if (term.isEmpty()) {
        continue;
      }
      requirements.add(parseTerm(selector, term));
    }
    return of(requirements);
  }

  /** Splits on commas that are not escaped with a backslash; escapes stay in the terms. */
  private static List<String> splitTerms(String selector) {
    List<String> terms = new ArrayList<>();
    if (selector.isEmpty()) {
      return terms;
    }
    int start = 0;
    boolean escaped = false;
    for (int i = 0; i < selector.length(); i++) {
      char c = selector.charAt(i);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == ',') {
        terms.add(selector.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(selector.substring(start));
    return terms;
  }

  /** The first operator occurrence splits the term; "!=" and "==" win over "=" at the same position. */
  private static FieldRequirement parseTerm(String selector, String term) {
    for (int i = 0; i < term.length(); i++) {
      String rest = term.substring(i);
      if (rest.startsWith("!=")) {
        return new FieldRequirement(term.substring(0, i), true, unescape(term.substring(i + 2)));
      }
      if (rest.startsWith("==")) {
        return new FieldRequirement(term.substring(0, i), false, unescape(term.substring(i + 2)));
      }
      if (rest.startsWith("=")) {
        return new FieldRequirement(term.substring(0, i), false, unescape(term.substring(i + 1)));
      }
    }
    throw new IllegalArgumentException("invalid selector: '" + selector + "'; can't understand '" + term + "'");
  }

  private static String unescape(String value) {
    if (value.indexOf('\\') < 0 && value.indexOf(',') < 0 && value.indexOf('=') < 0) {
      return value;
    }
    StringBuilder out = new StringBuilder(value.length());
    boolean escaped = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (escaped) {
        if (c != '\\' && c != ',' && c != '=') {
          throw new IllegalArgumentException("invalid field selector: invalid escape sequence: \\" + c);
        }
        out.append(c);
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == ',' || c == '=') {
        throw new IllegalArgumentException("invalid field selector: unescaped character in value: " + c);
      } else {
        out.append(c);
      }
    }
    if (escaped) {
      throw new IllegalArgumentException("invalid field selector: invalid escape sequence: \\");
    }
    return out.toString();
  }

  /**
   * Whether an object satisfies every term.
   *
   * @param fieldValue the object's value for a field label, empty when the object lacks the field (which
   *     then reads as the empty string); see {@link FieldLabels#fieldValues}
   */
  public boolean matches(Function<String, Optional<String>> fieldValue) {
    for (FieldRequirement requirement : requirements) {
      if (!requirement.matches(fieldValue.apply(requirement.field()).orElse(""))) {
        return false;
      }
    }
    return true;
  }

  /** Whether this selector places no restriction. */
  public boolean isEmpty() {
    return requirements.isEmpty();
  }

  /** The terms, in the order upstream evaluates them (sorted by their raw text). */
  public List<FieldRequirement> requirements() {
    return requirements;
  }

  /**
   * The value this selector requires {@code field} to equal, if one of its terms is {@code field=value}
   * (upstream's {@code RequiresExactMatch}; the store can use it to narrow {@code spec.nodeName} lookups).
   */
  public Optional<String> requiredValue(String field) {
    return requirements.stream()
        .filter(r -> !r.negated() && r.field().equals(field))
        .map(FieldRequirement::value)
        .findFirst();
  }

  /** The query-string form, with values escaped. */
  @Override
  public String toString() {
    return requirements.stream().map(FieldRequirement::toString).collect(Collectors.joining(","));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FieldSelector other && requirements.equals(other.requirements);
  }

  @Override
  public int hashCode() {
    return requirements.hashCode();
  }
}
