package io.berth.scheduler.record;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a recording written by {@link StreamRecorder} (plain or {@code .gz}; several appended runs
 * read as one stream). Blank lines are skipped; a gzip'd file cut short (the recording process was
 * killed) ends at its last complete line, with a warning. Stateless; each call opens the file itself.
 */
public final class RecordingReader {
  private static final Logger LOG = LoggerFactory.getLogger(RecordingReader.class);

  private RecordingReader() {}

  /** A recording that cannot be read: the message names the file and, for a bad line, its number. */
  public static final class BadRecordingException extends Exception {
    private static final long serialVersionUID = 1L;

    BadRecordingException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Every event of {@code file}, in file order. */
  public static List<RecordedEvent> readAll(Path file) throws BadRecordingException {
    RecordFormat format = new RecordFormat();
    List<RecordedEvent> out = new ArrayList<>();
    int lineNo = 0;
    try (InputStream raw = Files.newInputStream(file);
        InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while (true) {
        try {
          line = reader.readLine();
        } catch (EOFException truncated) {
          LOG.warn("recording {} ends in the middle of a gzip block after line {}; reading up to"
              + " there", file, lineNo);
          break;
        }
        if (line == null) {
          break;
        }
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        try {
          out.add(format.decode(line));
        } catch (IllegalArgumentException e) {
          throw new BadRecordingException(file + ": line " + lineNo + ": " + e.getMessage(), e);
        }
      }
    } catch (NoSuchFileException e) {
      throw new BadRecordingException(file + ": no such file", e);
    } catch (IOException e) {
      throw new BadRecordingException(file + ": cannot be read: " + e, e);
    }
    return out;
  }
}
