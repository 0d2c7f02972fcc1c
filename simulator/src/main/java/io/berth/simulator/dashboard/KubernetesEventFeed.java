package io.berth.simulator.dashboard;

import io.berth.informer.ResourceEventHandler;
import io.berth.scheduler.EventOccurrences;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Feeds the dashboard's {@link EventBuffer} from an informer on core/v1 Events: each new Event, and each repeat of
 * one (its count grew, as the recorders aggregate repeats: {@code series.count} for an Event the scheduler wrote
 * through events.k8s.io/v1, {@code count} for a core/v1 one; {@link EventOccurrences}), becomes one entry naming the
 * involved object, at the time of its latest occurrence.
 * Events already in the informer's initial list are skipped unless {@code includeInitial}. Thread-safe: holds no
 * state of its own; the informer calls it from one thread at a time.
 */
final class KubernetesEventFeed implements ResourceEventHandler<Event> {

  private final EventBuffer buffer;
  private final boolean includeInitial;

  KubernetesEventFeed(EventBuffer buffer, boolean includeInitial) {
    this.buffer = buffer;
    this.includeInitial = includeInitial;
  }

  @Override
  public void onAdd(Event e, boolean isInInitialList) {
    if (!isInInitialList || includeInitial) {
      append(e);
    }
  }

  @Override
  public void onUpdate(Event oldEvent, Event newEvent) {
    if (EventOccurrences.count(oldEvent) != EventOccurrences.count(newEvent)
        || !Objects.equals(oldEvent.getMessage(), newEvent.getMessage())) {
      append(newEvent);
    }
  }

  @Override
  public void onDelete(Event e, boolean finalStateUnknown) {
    // Events expire; their deletion is not news
  }

  private void append(Event e) {
    var o = e.getInvolvedObject();
    String object = o == null ? "" : (o.getKind() == null ? "" : o.getKind() + " ")
        + (o.getNamespace() == null || o.getNamespace().isEmpty() ? "" : o.getNamespace() + "/") + o.getName();
    String source = e.getReportingComponent() != null && !e.getReportingComponent().isEmpty()
        ? e.getReportingComponent() : e.getSource() == null ? "" : Objects.toString(e.getSource().getComponent(), "");
    buffer.append(time(e), e.getType() == null ? "Normal" : e.getType(), Objects.toString(e.getReason(), ""),
        object, Objects.toString(e.getMessage(), ""), source);
  }

  private static Instant time(Event e) {
    try {
      String t = DashboardData.eventTime(e);
      return t.isEmpty() ? Instant.now() : Instant.parse(t);
    } catch (DateTimeParseException ex) {
      return Instant.now();
    }
  }
}
