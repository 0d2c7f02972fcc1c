package io.berth.bench.embedded;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * What a load generator reads of a watch event or an object: the event's {@code type} and the object's
 * {@code metadata.resourceVersion}, found with Jackson's streaming parser, which skips everything else and stops as
 * soon as both are known (kube-apiserver and the embedded server write {@code type} first and {@code metadata} near
 * the top of the object, so most of the bytes are never tokenized). No object model is built.
 *
 * @param type the event's type ({@code ADDED}, {@code MODIFIED}, ...); null when the JSON has none (an object)
 * @param resourceVersion the object's {@code metadata.resourceVersion}; null when absent
 */
record WatchEventHead(String type, String resourceVersion) {

  /** Thread-safe once built (Jackson factories are). */
  private static final JsonFactory JSON = JsonFactory.builder().build();

  /**
   * The head of the watch event in {@code bytes[offset, offset + length)}: its {@code type} and its
   * {@code object.metadata.resourceVersion}. Throws Jackson's exception on malformed JSON before both are found.
   */
  static WatchEventHead ofEvent(byte[] bytes, int offset, int length) {
    try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), bytes, offset, length)) {
      requireObject(p);
      String type = null;
      String rv = null;
      while ((type == null || rv == null) && p.nextToken() == JsonToken.PROPERTY_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("type") && value == JsonToken.VALUE_STRING) {
          type = p.getString();
        } else if (field.equals("object") && value == JsonToken.START_OBJECT) {
          // read to the object's end only when the type is still to come after it
          rv = resourceVersion(p, type == null);
        } else {
          p.skipChildren();
        }
      }
      return new WatchEventHead(type, rv);
    }
  }

  /** The {@code metadata.resourceVersion} of the object in {@code bytes} (a create's answer); null when absent. */
  static String resourceVersionOf(byte[] bytes, int offset, int length) {
    try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), bytes, offset, length)) {
      requireObject(p);
      return resourceVersion(p, false);
    }
  }

  private static void requireObject(JsonParser p) {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new IllegalArgumentException("not a JSON object");
    }
  }

  // p is at the START_OBJECT of an object; returns as soon as metadata has been read, leaving the rest unread
  // unless toEnd (then p is left at the object's END_OBJECT)
  private static String resourceVersion(JsonParser p, boolean toEnd) {
    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
        String rv = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (name.equals("resourceVersion") && v == JsonToken.VALUE_STRING) {
            rv = p.getString();
          } else {
            p.skipChildren();
          }
        }
        if (toEnd) {
          while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            p.nextToken();
            p.skipChildren();
          }
        }
        return rv;
      }
      p.skipChildren();
    }
    return null;
  }
}
