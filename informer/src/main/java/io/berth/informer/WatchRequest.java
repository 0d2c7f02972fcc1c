package io.berth.informer;

import java.util.Objects;

/**
 * One watch call: start after {@code resourceVersion}, ask the server to end the watch after
 * {@code timeoutSeconds}, with bookmarks allowed (the reflector always asks for them). Immutable.
 */
public record WatchRequest(String resourceVersion, long timeoutSeconds) {

  public WatchRequest {
    Objects.requireNonNull(resourceVersion, "resourceVersion");
    if (timeoutSeconds <= 0) {
      throw new IllegalArgumentException("timeoutSeconds must be positive: " + timeoutSeconds);
    }
  }
}
