package io.berth.component;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli converter for duration flags written in Go's syntax ({@link GoDurations}). picocli reports a failure as
 * {@code Invalid value for option '--flag': ...}, a usage error (exit status 2). Stateless.
 */
public final class GoDurationConverter implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String value) {
    try {
      return GoDurations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage() + " (use Go syntax such as 15s, 1m30s or 500ms)");
    }
  }
}
