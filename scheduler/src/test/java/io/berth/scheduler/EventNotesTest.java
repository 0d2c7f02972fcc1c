package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventNotesTest {

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void keepsANoteOfAtMost1024BytesAsItIs() {
    String ascii = "a".repeat(1024);
    assertThat(EventNotes.truncate(ascii)).isSameAs(ascii);
    String twoByte = "é".repeat(512); // 1,024 bytes, 512 chars
    assertThat(EventNotes.truncate(twoByte)).isSameAs(twoByte);
  }

  @Test
  void cutsAsciiTo1020BytesAndTheSuffix() {
    String out = EventNotes.truncate("0/5000 nodes are available: " + "x".repeat(2000));
    assertThat(bytes(out)).isEqualTo(1024);
    assertThat(out).startsWith("0/5000 nodes are available: ").endsWith("x ...");
  }

  @Test
  void countsBytesNotCharactersAndNeverSplitsACharacter() {
    // 600 chars but 1,200 bytes: a char-based limit would have let it through and the server would refuse it
    String out = EventNotes.truncate("é".repeat(600));
    assertThat(bytes(out)).isLessThanOrEqualTo(1024);
    assertThat(out).isEqualTo("é".repeat(510) + " ...");
    String threeByte = EventNotes.truncate("a" + "€".repeat(400)); // 1 + 1,200 bytes
    assertThat(bytes(threeByte)).isLessThanOrEqualTo(1024);
    assertThat(threeByte).isEqualTo("a" + "€".repeat(339) + " ...");
  }
}
