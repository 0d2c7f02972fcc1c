package io.berth.controller;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * API timestamps as Go's {@code metav1.Time} writes them (RFC 3339 in UTC with whole seconds) and the hex-nanosecond
 * suffix client-go gives event names. Stateless.
 */
public final class ApiTimes {

  private ApiTimes() {
  }

  /** {@code 2006-01-02T15:04:05Z}, as {@code metav1.Time} serializes. */
  public static String format(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.SECONDS));
  }

  /** The Unix time in nanoseconds in lower-case hex ({@code %x} of {@code UnixNano()}), for event names. */
  public static String hexNanos(Instant t) {
    return Long.toHexString(t.getEpochSecond() * 1_000_000_000L + t.getNano());
  }
}
