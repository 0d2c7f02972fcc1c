package io.berth.scheduler.queue;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A manual {@link InstantSource} for tests. Thread-safe: time is an atomic reference. */
final class FakeClock implements InstantSource {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2024-01-01T00:00:00Z"));

  @Override
  public Instant instant() {
    return now.get();
  }

  void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }
}
