package io.berth.component;

/**
 * The API server could not answer a TokenReview or SubjectAccessReview (unreachable, an error status, a timeout).
 * The secure endpoint answers 401 when authentication fails this way and 500 when authorization does, as
 * upstream's filters do; such results are never cached. Immutable.
 */
public final class DelegationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public DelegationException(String message, Throwable cause) {
    super(message, cause);
  }
}
