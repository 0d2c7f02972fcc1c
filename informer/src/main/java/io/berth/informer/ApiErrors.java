package io.berth.informer;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;

/**
 * Classifies API errors the way client-go's reflector does ({@code isExpiredError},
 * {@code isTooLargeResourceVersionError}, {@code isWatchErrorRetriable}). Stateless.
 */
final class ApiErrors {

  static final int GONE = 410;
  static final int TOO_MANY_REQUESTS = 429;
  static final int GATEWAY_TIMEOUT = 504;

  private ApiErrors() {}

  /** 410 Gone / reason Expired: the resourceVersion or continue token is too old. */
  static boolean isExpired(Throwable error) {
    KubernetesClientException e = asClientException(error);
    if (e == null) {
      return false;
    }
    if (e.getCode() == GONE) {
      return true;
    }
    Status status = e.getStatus();
    return status != null && ("Expired".equals(status.getReason()) || "Gone".equals(status.getReason()));
  }

  /** The requested resourceVersion is newer than the server (or its cache) knows. */
  static boolean isTooLargeResourceVersion(Throwable error) {
    KubernetesClientException e = asClientException(error);
    if (e == null || e.getStatus() == null) {
      return false;
    }
    Status status = e.getStatus();
    if (status.getDetails() != null && status.getDetails().getCauses() != null) {
      for (StatusCause cause : status.getDetails().getCauses()) {
        if ("ResourceVersionTooLarge".equals(cause.getReason())
            || "Too large resource version".equals(cause.getMessage())) {
          return true;
        }
      }
    }
    return e.getCode() == GATEWAY_TIMEOUT
        && status.getMessage() != null
        && status.getMessage().contains("Too large resource version");
  }

  /** 429: the server asks us to slow down. */
  static boolean isTooManyRequests(Throwable error) {
    KubernetesClientException e = asClientException(error);
    return e != null && e.getCode() == TOO_MANY_REQUESTS;
  }

  /**
   * Worth retrying the watch itself after a backoff, without relisting: the server refused the
   * connection (it is probably restarting, and our resourceVersion is still good) or throttled us.
   */
  static boolean isWatchErrorRetriable(Throwable error) {
    if (isTooManyRequests(error)) {
      return true;
    }
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static KubernetesClientException asClientException(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException) {
        return (KubernetesClientException) t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }
}
