package io.berth.informer;

import java.util.List;
import java.util.Objects;

/**
 * One page of a list call: the items, the collection's {@code resourceVersion} at which the list
 * was served, and the {@code continueToken} for the next page ({@code ""} on the last page).
 * Immutable container; the items are the freshly decoded objects and become the caller's.
 */
public record ListPage<T>(List<T> items, String resourceVersion, String continueToken) {

  public ListPage {
    Objects.requireNonNull(items, "items");
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    Objects.requireNonNull(continueToken, "continueToken");
  }

  /** Whether another page follows. */
  public boolean hasMore() {
    return !continueToken.isEmpty();
  }
}
