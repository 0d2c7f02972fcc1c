package io.berth.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link EventRecorder} that keeps what it is told, for assertions. Thread-safe (copy-on-write list). */
public final class RecordingEventRecorder implements EventRecorder {

  /** One recorded event. */
  public record Recorded(String objectName, String type, String reason, String message) {
  }

  private final List<Recorded> events = new CopyOnWriteArrayList<>();

  @Override
  public void event(HasMetadata object, String type, String reason, String messageFormat, Object... args) {
    events.add(new Recorded(object.getMetadata().getName(), type, reason, String.format(messageFormat, args)));
  }

  public List<Recorded> events() {
    return List.copyOf(events);
  }

  public List<Recorded> withReason(String reason) {
    return events.stream().filter(e -> e.reason().equals(reason)).toList();
  }
}
