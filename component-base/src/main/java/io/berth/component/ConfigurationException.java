package io.berth.component;

import java.util.Objects;

/**
 * A flag or configuration-file field that cannot be used as given. The daemons turn it into a usage error: the
 * message (which starts with the {@link #source()} it names, such as {@code --kubeconfig}) is printed and the
 * process exits with status 2. Immutable.
 */
public final class ConfigurationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String source;

  /**
   * @param source the flag ({@code --kubeconfig}) or field ({@code current-context}) at fault
   * @param message what is wrong; prefixed with {@code source + ": "} unless it already starts with the source
   */
  public ConfigurationException(String source, String message) {
    this(source, message, null);
  }

  public ConfigurationException(String source, String message, Throwable cause) {
    super(message.startsWith(Objects.requireNonNull(source, "source")) ? message : source + ": " + message, cause);
    this.source = source;
  }

  /** The flag or field the message names. */
  public String source() {
    return source;
  }
}
