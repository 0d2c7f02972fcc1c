package io.berth.scheduler;

import tools.jackson.core.io.JsonStringEncoder;

/**
 * The body of a core/v1 Event create as {@link KubernetesEventRecorder} writes it, composed directly: the same
 * members fabric8's serializer writes for the Event the recorder used to build (null members left out), without
 * a builder and a reflective serializer per event. Strings are escaped by Jackson's {@link JsonStringEncoder}.
 * Stateless and thread-safe.
 */
final class EventJson {
  private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();

  private EventJson() {
  }

  /** What an Event is about: its {@code involvedObject}. */
  record Regarding(String apiVersion, String kind, String namespace, String name, String uid,
      String resourceVersion) {
  }

  /**
   * The Event {@code namespace/name} about {@code regarding}, reported by {@code component} as both
   * {@code source.component} and {@code reportingComponent}; timestamps in RFC 3339 (seconds).
   */
  static String create(String namespace, String name, Regarding regarding, String type, String reason,
      String action, String message, String component, String firstTimestamp, String lastTimestamp,
      int count) {
    StringBuilder json = new StringBuilder(512).append("{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{");
    boolean more = member(json, false, "name", name);
    member(json, more, "namespace", namespace);
    json.append('}');
    member(json, true, "action", action);
    json.append(",\"count\":").append(count);
    member(json, true, "firstTimestamp", firstTimestamp);
    json.append(",\"involvedObject\":{");
    more = member(json, false, "apiVersion", regarding.apiVersion());
    more = member(json, more, "kind", regarding.kind());
    more = member(json, more, "name", regarding.name());
    more = member(json, more, "namespace", regarding.namespace());
    more = member(json, more, "resourceVersion", regarding.resourceVersion());
    member(json, more, "uid", regarding.uid());
    json.append('}');
    member(json, true, "lastTimestamp", lastTimestamp);
    member(json, true, "message", message);
    member(json, true, "reason", reason);
    member(json, true, "reportingComponent", component);
    json.append(",\"source\":{");
    member(json, false, "component", component);
    json.append('}');
    member(json, true, "type", type);
    return json.append('}').toString();
  }

  /** Appends {@code "key":"value"} (after a comma if {@code comma}) unless value is null; whether it did. */
  private static boolean member(StringBuilder json, boolean comma, String key, String value) {
    if (value == null) {
      return comma;
    }
    if (comma) {
      json.append(',');
    }
    json.append('"').append(key).append("\":\"");
    ENCODER.quoteAsString(value, json);
    json.append('"');
    return true;
  }
}
