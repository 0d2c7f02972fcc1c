package io.berth.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * core/v1 Events, as client-go's {@code tools/record} broadcaster writes them: {@code source.component} and
 * {@code reportingComponent} the component, {@code firstTimestamp}/{@code lastTimestamp} in whole seconds and a
 * {@code count} that a repeat's patch ({@code {"count":N,"lastTimestamp":...}}) bumps. Repeats are occurrences
 * with the same object, type, reason and message, as upstream's event correlator keys them. The body is composed
 * directly: the same members fabric8's serializer writes for the equivalent Event (null members left out),
 * without a builder and a reflective serializer per event. The recorder falls back to this format when the server
 * does not serve events.k8s.io/v1. Immutable and thread-safe.
 */
final class CoreV1EventFormat implements EventWireFormat {

  private final String component;

  CoreV1EventFormat(String component) {
    this.component = component;
  }

  /** The correlator's identity of an event: the object (not its resourceVersion), type, reason, message. */
  private record Key(String apiVersion, String kind, String namespace, String name, String uid, String type,
      String reason, String message) {
  }

  @Override
  public String apiVersion() {
    return "v1";
  }

  @Override
  public String path() {
    return "api/v1";
  }

  @Override
  public String component() {
    return component;
  }

  @Override
  public Object seriesKey(EventOccurrence o) {
    return new Key(o.apiVersion(), o.kind(), o.namespace(), o.name(), o.uid(), o.type(), o.reason(), o.message());
  }

  @Override
  public Optional<Duration> seriesIdle() {
    return Optional.empty();
  }

  @Override
  public String create(EventOccurrence first, String name, int count, Instant last) {
    StringBuilder json = new StringBuilder(512).append("{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{");
    boolean more = EventJson.member(json, false, "name", name);
    EventJson.member(json, more, "namespace", first.eventNamespace());
    json.append('}');
    EventJson.member(json, true, "action", first.action());
    json.append(",\"count\":").append(count);
    EventJson.member(json, true, "firstTimestamp", EventJson.time(first.at()));
    EventJson.reference(json, "involvedObject", first);
    EventJson.member(json, true, "lastTimestamp", EventJson.time(last));
    EventJson.member(json, true, "message", first.message());
    EventJson.member(json, true, "reason", first.reason());
    EventJson.member(json, true, "reportingComponent", component);
    json.append(",\"source\":{");
    EventJson.member(json, false, "component", component);
    json.append('}');
    EventJson.member(json, true, "type", first.type());
    return json.append('}').toString();
  }

  @Override
  public String repeat(int count, Instant last) {
    return "{\"count\":" + count + ",\"lastTimestamp\":\"" + EventJson.time(last) + "\"}";
  }
}
