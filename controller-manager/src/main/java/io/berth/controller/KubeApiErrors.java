package io.berth.controller;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Classifies API errors as apimachinery's {@code k8s.io/apimachinery/pkg/api/errors} does ({@code IsNotFound},
 * {@code IsConflict}, {@code IsInvalid}, {@code HasStatusCause}) and renders them as a Go {@code StatusError} prints:
 * the API Status message alone, without the transport detail fabric8 adds. Stateless.
 */
public final class KubeApiErrors {

  /** The status cause kube-apiserver sets when a create is refused because its namespace is terminating. */
  public static final String NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating";

  private KubeApiErrors() {
  }

  /** The HTTP status code of an API error; 0 for transport errors and anything that is not an API error. */
  public static int code(Throwable error) {
    KubernetesClientException e = clientException(error);
    return e == null ? 0 : e.getCode();
  }

  public static boolean isNotFound(Throwable error) {
    return code(error) == 404;
  }

  public static boolean isConflict(Throwable error) {
    return code(error) == 409;
  }

  public static boolean isInvalid(Throwable error) {
    return code(error) == 422;
  }

  public static boolean isAlreadyExists(Throwable error) {
    KubernetesClientException e = clientException(error);
    return e != null && e.getCode() == 409 && e.getStatus() != null
        && "AlreadyExists".equals(e.getStatus().getReason());
  }

  /** Whether the server answered at all: an error with an HTTP status (client-go's {@code *errors.StatusError}). */
  public static boolean isStatusError(Throwable error) {
    return code(error) > 0;
  }

  /** Whether the API Status of the error carries a cause of {@code type} ({@code HasStatusCause}). */
  public static boolean hasStatusCause(Throwable error, String type) {
    KubernetesClientException e = clientException(error);
    if (e == null || e.getStatus() == null || e.getStatus().getDetails() == null
        || e.getStatus().getDetails().getCauses() == null) {
      return false;
    }
    for (StatusCause cause : e.getStatus().getDetails().getCauses()) {
      if (type.equals(cause.getReason())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The error as a user reads it in events and conditions: the API Status message when the server sent one (as
   * {@code StatusError.Error()} prints it), otherwise the exception's own message.
   */
  public static String message(Throwable error) {
    KubernetesClientException e = clientException(error);
    if (e != null) {
      Status status = e.getStatus();
      if (status != null && status.getMessage() != null && !status.getMessage().isEmpty()) {
        return status.getMessage();
      }
    }
    String message = error.getMessage();
    return message == null ? error.getClass().getSimpleName() : message;
  }

  private static KubernetesClientException clientException(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException e) {
        return e;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }
}
