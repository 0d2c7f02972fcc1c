package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The length limits count what Go's len counts: UTF-8 bytes. */
class EventValidationTest {

  @Test
  void utf8LengthIsTheEncodedByteCount() {
    for (String s : new String[] {"", "ascii", "é", "ünïcødé ✓", "\u07ff\u0800", "emoji \uD83D\uDE00",
        "x".repeat(1024)}) {
      assertThat(EventValidation.utf8Length(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
    }
  }
}
