package io.berth.informer;

import java.util.Objects;

/**
 * One list call: {@code resourceVersion} ({@code "0"}: any cached state; {@code ""}: a consistent,
 * most recent read; otherwise: not older than), page size {@code limit} (0: no paging) and the
 * {@code continueToken} of the previous page ({@code ""} for the first page). Immutable.
 */
public record ListRequest(String resourceVersion, long limit, String continueToken) {

  public ListRequest {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    Objects.requireNonNull(continueToken, "continueToken");
    if (limit < 0) {
      throw new IllegalArgumentException("negative limit " + limit);
    }
  }
}
