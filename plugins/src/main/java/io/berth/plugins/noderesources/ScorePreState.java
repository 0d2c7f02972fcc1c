package io.berth.plugins.noderesources;

import io.berth.framework.StateData;

/**
 * What the resource-allocation plugins' PreScore stores for Score: the pod's request of each
 * scored resource, in configuration order. Immutable after construction (the array is copied in,
 * and out except to Score, which only reads it), so Score threads may share it.
 */
final class ScorePreState implements StateData {
  private final long[] podRequests;

  ScorePreState(long[] podRequests) {
    this.podRequests = podRequests.clone();
  }

  long[] podRequests() {
    return podRequests.clone();
  }

  /** The array itself, for Score's per-node hot path: callers must only read it. */
  long[] sharedPodRequests() {
    return podRequests;
  }

  @Override
  public StateData copy() {
    return this;
  }
}
