package io.berth.component;

import java.util.List;

/**
 * What {@code GET /readyz} asks: the reasons the daemon is not ready, none when it is. Called from HTTP threads at
 * any time, so implementations are thread-safe, fast and never block.
 */
@FunctionalInterface
public interface ReadinessCheck {

  /** The reasons the daemon is not ready now, in a stable order; empty when ready. */
  List<String> unreadyReasons();

  /** A check that always passes. */
  ReadinessCheck ALWAYS_READY = List::of;
}
