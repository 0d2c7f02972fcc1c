package io.berth.scheduler.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A scheduler configuration that cannot be used: unreadable, unparsable, not a
 * {@code kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration}, or invalid. The message names
 * the file (when there is one) and every problem with its field path, in apimachinery's
 * {@code field.Error} form, e.g. {@code invalid scheduler configuration file /etc/berth/s.yaml:
 * percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]}; the daemon prints it
 * and exits with status 2. Immutable.
 */
public final class SchedulerConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path file; // null when not from a file
  private final List<String> errors;

  private SchedulerConfigException(String message, Path file, List<String> errors,
      Throwable cause) {
    super(message, cause);
    this.file = file;
    this.errors = List.copyOf(errors);
  }

  static SchedulerConfigException inFile(Path file, List<?> errors, Throwable cause) {
    List<String> texts = texts(errors);
    return new SchedulerConfigException(
        "invalid scheduler configuration file " + file + ": " + String.join("; ", texts),
        file, texts, cause);
  }

  static SchedulerConfigException inContent(List<?> errors, Throwable cause) {
    List<String> texts = texts(errors);
    return new SchedulerConfigException(
        "invalid scheduler configuration: " + String.join("; ", texts), null, texts,
        cause);
  }

  static SchedulerConfigException fromFlag(String flag, List<?> errors) {
    List<String> texts = texts(errors);
    return new SchedulerConfigException(
        "invalid scheduler configuration after " + flag + ": " + String.join("; ", texts),
        null, texts, null);
  }

  /** The configuration file, when the configuration came from one. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /** Each problem, as {@code <field path>: <what is wrong>}; never empty. */
  public List<String> errors() {
    return errors;
  }

  private static List<String> texts(List<?> errors) {
    return errors.stream().map(Object::toString).toList();
  }
}
