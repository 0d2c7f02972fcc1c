package io.berth.scheduler.cache;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests move by hand. Thread-safe (an atomic reference). */
final class FakeInstantSource implements InstantSource {
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2025-01-01T00:00:00Z"));

  @Override
  public Instant instant() {
    return now.get();
  }

  void advance(Duration duration) {
    now.updateAndGet(t -> t.plus(duration));
  }
}
