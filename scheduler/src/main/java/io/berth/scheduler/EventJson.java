package io.berth.scheduler;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * The pieces the Event formats compose their bodies from, directly as text: members whose strings Jackson's
 * {@link JsonStringEncoder} escapes (a null value leaves the member out, as fabric8's serializer and Go's
 * {@code omitempty} do), the object reference, and the two timestamp forms. Stateless and thread-safe.
 */
final class EventJson {
  private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();
  /** metav1.MicroTime's wire form: RFC 3339 in UTC with exactly six fractional digits. */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private EventJson() {
  }

  /** Appends {@code "key":"value"} (after a comma if {@code comma}) unless value is null; whether it did. */
  static boolean member(StringBuilder json, boolean comma, String key, String value) {
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

  /** Appends {@code ,"key":{...}}: the occurrence's object reference, its null members left out. */
  static void reference(StringBuilder json, String key, EventOccurrence o) {
    json.append(",\"").append(key).append("\":{");
    boolean more = member(json, false, "apiVersion", o.apiVersion());
    more = member(json, more, "kind", o.kind());
    more = member(json, more, "name", o.name());
    more = member(json, more, "namespace", o.namespace() == null || o.namespace().isEmpty() ? null : o.namespace());
    more = member(json, more, "resourceVersion", o.resourceVersion());
    member(json, more, "uid", o.uid());
    json.append('}');
  }

  /** metav1.Time: RFC 3339, whole seconds. */
  static String time(Instant at) {
    return at.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** metav1.MicroTime: RFC 3339, microseconds ({@code 2026-12-02T12:00:00.123456Z}). */
  static String microTime(Instant at) {
    return MICRO_TIME.format(at);
  }
}
