package io.berth.embedded.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Converts Events between the {@code core/v1} form the store holds and the {@code events.k8s.io/v1} form, as
 * kube-apiserver's conversion through the internal Event does ({@code pkg/apis/events/v1/conversion.go}):
 * {@code regarding} is {@code involvedObject}, {@code note} is {@code message}, {@code reportingController} is
 * {@code reportingComponent}, the {@code deprecated*} fields are {@code source}, {@code firstTimestamp},
 * {@code lastTimestamp} and {@code count}; {@code eventTime}, {@code series}, {@code action}, {@code related},
 * {@code reportingInstance}, {@code reason}, {@code type} and {@code metadata} are the same in both. A field one
 * version does not have is dropped, as a decode into the other version's type drops it; a {@code series} keeps only
 * {@code count} and {@code lastObservedTime}. Stateless and thread-safe; never changes its argument.
 */
final class EventConversion {

  /** core/v1 field, events.k8s.io/v1 field: the pairs whose names differ. */
  private static final String[][] RENAMED = {
      {"involvedObject", "regarding"},
      {"message", "note"},
      {"reportingComponent", "reportingController"},
      {"source", "deprecatedSource"},
      {"firstTimestamp", "deprecatedFirstTimestamp"},
      {"lastTimestamp", "deprecatedLastTimestamp"},
      {"count", "deprecatedCount"},
  };
  /** Fields with the same name and meaning in both versions (series is converted on its own). */
  private static final String[] SHARED = {"eventTime", "action", "reason", "related", "reportingInstance", "type"};

  private EventConversion() {
  }

  /** The events.k8s.io/v1 form of a stored core/v1 Event. */
  static ObjectNode toV1(JsonNode core) {
    ObjectNode out = Json.object();
    out.put("apiVersion", ResourceTypes.EVENTS_V1.apiVersion());
    out.put("kind", "Event");
    copy(core, "metadata", out, "metadata");
    for (String[] pair : RENAMED) {
      copy(core, pair[0], out, pair[1]);
    }
    for (String field : SHARED) {
      copy(core, field, out, field);
    }
    series(core, out);
    // like Go's encoding of the typed object: the struct-valued members are always there, a zero eventTime is null
    out.putIfAbsent("regarding", Json.object());
    out.putIfAbsent("deprecatedSource", Json.object());
    if (!out.has("eventTime")) {
      out.putNull("eventTime");
    }
    dropZeroCount(out, "deprecatedCount");
    return out;
  }

  /** The core/v1 form of an events.k8s.io/v1 Event a client sent, to store. */
  static ObjectNode toCore(JsonNode v1) {
    ObjectNode out = Json.object();
    out.put("apiVersion", ResourceTypes.EVENTS.apiVersion());
    out.put("kind", "Event");
    copy(v1, "metadata", out, "metadata");
    for (String[] pair : RENAMED) {
      copy(v1, pair[1], out, pair[0]);
    }
    for (String field : SHARED) {
      copy(v1, field, out, field);
    }
    series(v1, out);
    out.putIfAbsent("involvedObject", Json.object());
    out.putIfAbsent("source", Json.object());
    dropZeroCount(out, "count");
    return out;
  }

  private static void copy(JsonNode from, String fromField, ObjectNode to, String toField) {
    JsonNode value = from.get(fromField);
    if (value != null && !value.isNull()) {
      // a deep copy: the result is the caller's to change, the argument may be a shared stored tree
      to.set(toField, value.deepCopy());
    }
  }

  private static void series(JsonNode from, ObjectNode to) {
    JsonNode series = from.get("series");
    if (series == null || !series.isObject()) {
      return;
    }
    ObjectNode out = to.putObject("series");
    copy(series, "count", out, "count");
    copy(series, "lastObservedTime", out, "lastObservedTime");
  }

  private static void dropZeroCount(ObjectNode event, String field) {
    JsonNode count = event.get(field);
    if (count != null && count.isNumber() && count.asLong() == 0) {
      event.remove(field);
    }
  }
}
