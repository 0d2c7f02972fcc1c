package io.berth.embedded.selector;

import java.util.Objects;

/**
 * One term of a field selector: {@code field=value} (also written {@code ==}) or {@code field!=value}.
 * An absent field reads as the empty string, so {@code spec.nodeName=} selects unbound pods and
 * {@code spec.nodeName!=} bound ones. Immutable, thread-safe.
 *
 * @param field the field label, e.g. {@code spec.nodeName}
 * @param negated true for {@code !=}
 * @param value the unescaped value; may be empty
 */
public record FieldRequirement(String field, boolean negated, String value) {

  public FieldRequirement {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(value, "value");
  }

  /** Whether the field's value (empty string when absent) satisfies this term. */
  public boolean matches(String actual) {
    boolean equal = value.equals(actual == null ? "" : actual);
    return negated != equal;
  }

  /** The term in query-string form, with {@code \}, {@code ,} and {@code =} in the value escaped. */
  @Override
  public String toString() {
    String escaped = value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=");
    return field + (negated ? "!=" : "=") + escaped;
  }
}
