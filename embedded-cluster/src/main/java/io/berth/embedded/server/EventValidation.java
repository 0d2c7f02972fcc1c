package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * kube-apiserver's Event validation ({@code pkg/apis/core/validation/events.go}), on the core/v1 form the store
 * holds. Every Event, whichever API wrote it, passes the legacy checks: without an {@code eventTime} its namespace
 * must agree with {@code involvedObject.namespace}; with one, {@code reportingController} (a qualified name),
 * {@code reportingInstance}, {@code action} and {@code reason} are required and length-limited and the message (the
 * note) is at most {@value #NOTE_LENGTH_LIMIT} bytes (upstream's limits count the UTF-8 bytes, Go's {@code len}). A create through events.k8s.io/v1 also needs an
 * {@code eventTime}, a type of Normal or Warning, a valid series and none of the deprecated fields; an update
 * through it may change nothing but the metadata and the series. Failures are 422 Invalid listing every field, as
 * upstream's aggregated field errors read. Stateless and thread-safe.
 */
final class EventValidation {

  static final int REPORTING_INSTANCE_LENGTH_LIMIT = 128;
  static final int ACTION_LENGTH_LIMIT = 128;
  static final int REASON_LENGTH_LIMIT = 128;
  static final int NOTE_LENGTH_LIMIT = 1024;

  private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  /** The fields an events.k8s.io/v1 update may not change, by their core/v1 names (upstream's order). */
  private static final List<String> IMMUTABLE = List.of("involvedObject", "reason", "message", "source",
      "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "action", "related", "reportingComponent",
      "reportingInstance");

  private EventValidation() {
  }

  /** The legacy checks, for a create or update through core/v1 ({@code type} names the API in the error). */
  static void validate(ResourceType type, JsonNode event) {
    List<String> errors = new ArrayList<>();
    legacy(event, errors);
    fail(type, event, errors);
  }

  /** A create through events.k8s.io/v1: the legacy checks and the strict ones. */
  static void validateV1Create(JsonNode event) {
    List<String> errors = new ArrayList<>();
    legacy(event, errors);
    series(event, errors);
    if (absent(event.get("eventTime"))) {
      errors.add("eventTime: Required value");
    }
    String type = text(event, "type");
    if (!type.equals("Normal") && !type.equals("Warning")) {
      errors.add("type: Invalid value: \"\": has invalid value: " + type);
    }
    for (String field : List.of("firstTimestamp", "lastTimestamp")) {
      if (!absent(event.get(field))) {
        errors.add(field + ": Invalid value: \"\": needs to be unset");
      }
    }
    JsonNode count = event.get("count");
    if (count != null && count.asLong(0) != 0) {
      errors.add("count: Invalid value: \"\": needs to be unset");
    }
    if (!text(event.path("source"), "component").isEmpty() || !text(event.path("source"), "host").isEmpty()) {
      errors.add("source: Invalid value: \"\": needs to be unset");
    }
    fail(ResourceTypes.EVENTS_V1, event, errors);
  }

  /** An update through events.k8s.io/v1 of {@code current} to {@code next}. */
  static void validateV1Update(JsonNode current, JsonNode next) {
    List<String> errors = new ArrayList<>();
    legacy(next, errors);
    if (!Objects.equals(current.get("series"), next.get("series"))) {
      series(next, errors);
    }
    for (String field : IMMUTABLE) {
      JsonNode before = normalized(current.get(field));
      JsonNode after = normalized(next.get(field));
      if (!Objects.equals(before, after)) {
        errors.add(field + ": Invalid value: " + (after == null ? "null" : after.toString())
            + ": field is immutable");
      }
    }
    fail(ResourceTypes.EVENTS_V1, next, errors);
  }

  private static void legacy(JsonNode event, List<String> errors) {
    String namespace = Json.text(event, "metadata", "namespace");
    namespace = namespace == null ? "" : namespace;
    String regardingNamespace = text(event.path("involvedObject"), "namespace");
    if (absent(event.get("eventTime"))) {
      boolean agrees = regardingNamespace.isEmpty() ? namespace.isEmpty() || namespace.equals("default")
          : namespace.equals(regardingNamespace);
      if (!agrees) {
        errors.add("involvedObject.namespace: Invalid value: \"" + regardingNamespace
            + "\": does not match event.namespace");
      }
      return;
    }
    if (regardingNamespace.isEmpty() && !namespace.equals("default") && !namespace.equals("kube-system")) {
      errors.add("involvedObject.namespace: Invalid value: \"\": does not match event.namespace");
    }
    String controller = text(event, "reportingComponent");
    if (controller.isEmpty()) {
      errors.add("reportingController: Required value");
    } else if (!qualifiedName(controller)) {
      errors.add("reportingController: Invalid value: \"" + controller + "\": must be a qualified name");
    }
    required(errors, "reportingInstance", text(event, "reportingInstance"), REPORTING_INSTANCE_LENGTH_LIMIT);
    required(errors, "action", text(event, "action"), ACTION_LENGTH_LIMIT);
    required(errors, "reason", text(event, "reason"), REASON_LENGTH_LIMIT);
    if (utf8Length(text(event, "message")) > NOTE_LENGTH_LIMIT) {
      errors.add("message: Invalid value: \"\": can have at most " + NOTE_LENGTH_LIMIT + " characters");
    }
  }

  private static void required(List<String> errors, String field, String value, int limit) {
    if (value.isEmpty()) {
      errors.add(field + ": Required value");
    }
    if (utf8Length(value) > limit) {
      errors.add(field + ": Invalid value: \"\": can have at most " + limit + " characters");
    }
  }

  /** Go's {@code len} of a string: its UTF-8 bytes, which is what upstream's length limits count. */
  static int utf8Length(String s) {
    int bytes = s.length();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x800 && !Character.isSurrogate(c)) {
        bytes += 2;
      } else if (c >= 0x80) {
        bytes += 1; // two bytes for U+0080..U+07FF; a surrogate pair is four bytes, two per half
      }
    }
    return bytes;
  }

  private static void series(JsonNode event, List<String> errors) {
    JsonNode series = event.get("series");
    if (series == null || series.isNull()) {
      return;
    }
    if (series.path("count").asLong(0) < 2) {
      errors.add("series.count: Invalid value: \"\": should be at least 2");
    }
    if (absent(series.get("lastObservedTime"))) {
      errors.add("series.lastObservedTime: Required value");
    }
  }

  /** IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
  private static boolean qualifiedName(String value) {
    int slash = value.indexOf('/');
    String name = value;
    if (slash >= 0) {
      String prefix = value.substring(0, slash);
      name = value.substring(slash + 1);
      if (prefix.isEmpty() || prefix.length() > 253 || !DnsNames.isSubdomain(prefix)) {
        return false;
      }
    }
    return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME.matcher(name).matches();
  }

  private static void fail(ResourceType type, JsonNode event, List<String> errors) {
    if (errors.isEmpty()) {
      return;
    }
    String name = Json.text(event, "metadata", "name");
    throw ApiException.invalid(type, name == null ? "" : name,
        errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
  }

  private static boolean absent(JsonNode node) {
    return node == null || node.isNull() || (node.isString() && node.asString().isEmpty());
  }

  /** A missing field and a JSON null or empty object are the same zero value of a Go struct member. */
  private static JsonNode normalized(JsonNode node) {
    if (node == null || node.isNull() || (node.isObject() && node.isEmpty())
        || (node.isNumber() && node.asLong() == 0)) {
      return null;
    }
    return node;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? "" : value.asString();
  }
}
