package io.berth.simulator.replay;

import java.time.Instant;
import java.time.InstantSource;

/**
 * The replay's clock: it stands still while the scheduler works and moves only when the replay
 * moves it (to the next recorded event or the next queue flush), so a run's timing depends on the
 * recording alone, never on how fast the machine is. Thread-safe: one writer (the replay thread),
 * readers anywhere; the time is a volatile field.
 */
final class SimulatedClock implements InstantSource {
  private volatile long millis;

  SimulatedClock(long startMillis) {
    this.millis = startMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public long millis() {
    return millis;
  }

  /** Moves the clock to {@code target}; never backwards. */
  void advanceTo(long target) {
    if (target > millis) {
      millis = target;
    }
  }
}
