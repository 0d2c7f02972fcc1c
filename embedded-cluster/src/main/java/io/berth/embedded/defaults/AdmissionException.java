package io.berth.embedded.defaults;

import java.util.Objects;

/**
 * A create or update that an admission step of kube-apiserver would refuse, e.g. a pod naming a
 * PriorityClass that does not exist ({@code no PriorityClass with name X was found}). The embedded API
 * server answers it with 403 Forbidden, as upstream's admission plugins do
 * ({@code pods "<name>" is forbidden: <message>}). {@link #field()} names the offending field. Immutable.
 */
public final class AdmissionException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String field;

  public AdmissionException(String field, String message) {
    super(message);
    this.field = Objects.requireNonNull(field, "field");
  }

  /** The field the refusal is about, e.g. {@code spec.priorityClassName}. */
  public String field() {
    return field;
  }
}
