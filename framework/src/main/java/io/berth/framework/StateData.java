package io.berth.framework;

/**
 * A value a plugin stores in {@link CycleState} for later extension points of the same cycle.
 * Implementations that can change after being written (by AddPod/RemovePod) must return a deep
 * enough copy from {@link #copy()}, which preemption uses to simulate on a cloned state.
 */
public interface StateData {
  /** A copy independent of this one; immutable data may return {@code this}. */
  StateData copy();
}
