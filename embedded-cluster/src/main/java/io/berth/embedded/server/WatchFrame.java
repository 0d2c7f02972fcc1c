package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;

/**
 * One watch event on the wire, {@code {"type":..,"object":..}}, encoded once and shared by every watcher that
 * wants the same form: the JSON bytes, the same as a newline-terminated chunk (HTTP streaming) and as text
 * (WebSocket messages), each derived on first use.
 *
 * <p>Not thread-safe: a frame is created and read by the one thread that delivers its event (a writer holding the
 * store lock, or a watch replaying history); sinks hand only the derived, immutable forms to other threads.
 */
final class WatchFrame {

  private static final byte[] SUFFIX = "}".getBytes(StandardCharsets.UTF_8);

  private final byte[] bytes;
  private byte[] line;
  private String text;

  private WatchFrame(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The frame of an event of {@code eventType} carrying {@code object} (already serialized). */
  static WatchFrame of(String eventType, byte[] object) {
    byte[] prefix = ("{\"type\":\"" + eventType + "\",\"object\":").getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[prefix.length + object.length + SUFFIX.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(object, 0, out, prefix.length, object.length);
    System.arraycopy(SUFFIX, 0, out, prefix.length + object.length, SUFFIX.length);
    return new WatchFrame(out);
  }

  /** The event's JSON; shared, never change it. */
  byte[] bytes() {
    return bytes;
  }

  /** The event's JSON followed by a newline (one chunk of a streamed watch); shared, never change it. */
  byte[] line() {
    if (line == null) {
      byte[] l = new byte[bytes.length + 1];
      System.arraycopy(bytes, 0, l, 0, bytes.length);
      l[bytes.length] = '\n';
      line = l;
    }
    return line;
  }

  /** The event's JSON as text (one WebSocket message). */
  String text() {
    if (text == null) {
      text = new String(bytes, StandardCharsets.UTF_8);
    }
    return text;
  }
}
