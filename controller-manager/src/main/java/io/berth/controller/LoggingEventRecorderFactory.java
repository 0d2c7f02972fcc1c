package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.IllegalFormatException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link EventRecorderFactory} that only logs: {@code Normal} events at INFO, {@code Warning} events at WARN,
 * under the logger {@code io.berth.controller.events.<component>}. The daemon's default until a recorder that
 * writes Kubernetes Events is registered. Never throws (a bad format is logged as given). Stateless and
 * thread-safe.
 */
public final class LoggingEventRecorderFactory implements EventRecorderFactory {

  @Override
  public EventRecorder forComponent(String component) {
    Logger log = LoggerFactory.getLogger("io.berth.controller.events." + component);
    return (object, type, reason, messageFormat, args) -> {
      String message = format(messageFormat, args);
      String kind = object == null ? "?" : object.getKind();
      String ref = object == null || object.getMetadata() == null ? "?" : ref(object);
      if (EventRecorder.WARNING.equals(type)) {
        log.warn("Event({} {}): type: '{}' reason: '{}' {}", kind, ref, type, reason, message);
      } else {
        log.info("Event({} {}): type: '{}' reason: '{}' {}", kind, ref, type, reason, message);
      }
    };
  }

  private static String ref(HasMetadata object) {
    String ns = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return ns == null || ns.isEmpty() ? String.valueOf(name) : ns + "/" + name;
  }

  private static String format(String messageFormat, Object... args) {
    if (messageFormat == null) {
      return "";
    }
    try {
      return args == null || args.length == 0 ? messageFormat : String.format(messageFormat, args);
    } catch (IllegalFormatException e) {
      return messageFormat;
    }
  }
}
