package io.berth.scheduler;

import java.nio.charset.StandardCharsets;

/**
 * Cuts an Event's note to what the API server accepts, as kube-scheduler's {@code truncateMessage} does: a note
 * longer than {@value #LIMIT_BYTES} bytes of UTF-8 keeps its first {@code LIMIT_BYTES - 4} bytes followed by
 * {@code " ..."}. Unlike Go's byte slice, the cut never splits a character, so the result stays valid UTF-8 (and may be
 * up to three bytes shorter than upstream's). Stateless and thread-safe.
 */
final class EventNotes {

  /** kube-apiserver's limit on {@code note} (events.k8s.io/v1) and the scheduler's on {@code message}. */
  static final int LIMIT_BYTES = 1024;
  private static final String SUFFIX = " ...";

  private EventNotes() {
  }

  static String truncate(String note) {
    if (note.length() * 3 <= LIMIT_BYTES) {
      return note; // no string this short can exceed the limit
    }
    byte[] utf8 = note.getBytes(StandardCharsets.UTF_8);
    if (utf8.length <= LIMIT_BYTES) {
      return note;
    }
    int end = LIMIT_BYTES - SUFFIX.length();
    // back off to the start of a character: continuation bytes are 10xxxxxx
    while (end > 0 && (utf8[end] & 0xC0) == 0x80) {
      end--;
    }
    return new String(utf8, 0, end, StandardCharsets.UTF_8) + SUFFIX;
  }
}
