package io.berth.controller;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A {@link java.time.Clock} that tests move by hand. Thread-safe: the instant is volatile, moves synchronized. */
public final class MovableClock extends Clock {

  private volatile Instant now;

  public MovableClock(Instant start) {
    this.now = start;
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
