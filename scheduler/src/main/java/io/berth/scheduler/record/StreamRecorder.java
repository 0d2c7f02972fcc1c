package io.berth.scheduler.record;

import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends the informer notifications it is handed to a recording file ({@link RecordFormat}), off the
 * informer's threads: {@link #record} stamps the event and offers it to a bounded buffer without ever
 * waiting; one writer thread takes events, encodes them and writes them, flushing whenever the buffer
 * runs empty (a gzip'd file is sync-flushed, so what was written can be read even if the process dies).
 * When the buffer is full the event is dropped and counted; the writer logs the count of new drops at
 * most once a second, and {@link #close()} logs the total.
 *
 * <p>Locking: the buffer is an {@link ArrayBlockingQueue} (its own lock, held only to insert or remove
 * one element); the file, the encoder and the report state are confined to the writer thread; the
 * counters are atomics; {@code closed} is volatile. Thread-safe: any number of informer threads may call
 * {@link #record} and the handlers concurrently; {@link #close()} is called once, by the owner.
 */
public final class StreamRecorder implements AutoCloseable {
  /** The default buffer: about 64k events, a few seconds of a busy cluster's churn. */
  public static final int DEFAULT_CAPACITY = 65_536;

  private static final Logger LOG = LoggerFactory.getLogger(StreamRecorder.class);
  private static final RecordedEvent POISON = new RecordedEvent(0, RecordedEvent.Type.ADDED, "-",
      "-", new io.fabric8.kubernetes.api.model.GenericKubernetesResource());

  private final Path file;
  private final InstantSource clock;
  private final BlockingQueue<RecordedEvent> buffer;
  private final AtomicLong recorded = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Thread writer;
  private final Writer out;
  private final RecordFormat format = new RecordFormat();
  private volatile boolean closed;
  // confined to the writer thread (and to close() once the writer has ended)
  private long reportedDrops;
  private long lastReportNanos;

  /**
   * Opens {@code file} for appending (creating it) and starts the writer thread. Throws
   * {@link IOException} when the file cannot be opened.
   */
  public StreamRecorder(Path file, int capacity, InstantSource clock) throws IOException {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive, got " + capacity);
    }
    this.file = file;
    this.clock = clock;
    this.buffer = new ArrayBlockingQueue<>(capacity);
    OutputStream raw = Files.newOutputStream(file, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    OutputStream stream = file.getFileName().toString().endsWith(".gz")
        ? new GZIPOutputStream(raw, 64 * 1024, true) : raw;
    this.out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 64 * 1024);
    this.writer = new Thread(this::writeLoop, "stream-recorder");
    writer.setDaemon(true);
    writer.start();
  }

  /** A recorder with the {@link #DEFAULT_CAPACITY} and the system clock. */
  public static StreamRecorder open(Path file) throws IOException {
    return new StreamRecorder(file, DEFAULT_CAPACITY, InstantSource.system());
  }

  /**
   * Records one event; never blocks. Returns false when it was dropped: the buffer was full or the
   * recorder closed.
   */
  public boolean record(RecordedEvent.Type type, String kind, String apiVersion, HasMetadata object) {
    if (closed) {
      dropped.incrementAndGet();
      return false;
    }
    RecordedEvent event = new RecordedEvent(clock.millis(), type, kind, apiVersion, object);
    if (!buffer.offer(event)) {
      dropped.incrementAndGet();
      return false;
    }
    recorded.incrementAndGet();
    return true;
  }

  /** A handler that records every notification of an informer of {@code kind} objects. */
  public <T extends HasMetadata> ResourceEventHandler<T> handler(String kind, String apiVersion) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj, boolean isInInitialList) {
        record(RecordedEvent.Type.ADDED, kind, apiVersion, obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        record(RecordedEvent.Type.MODIFIED, kind, apiVersion, newObj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        record(RecordedEvent.Type.DELETED, kind, apiVersion, obj);
      }
    };
  }

  /** Events accepted into the buffer. */
  public long recorded() {
    return recorded.get();
  }

  /** Events written to the file. */
  public long written() {
    return written.get();
  }

  /** Events dropped because the buffer was full (or the recorder closed). */
  public long dropped() {
    return dropped.get();
  }

  /** Events that could not be encoded or written (logged). */
  public long failed() {
    return failed.get();
  }

  private void writeLoop() {
    List<RecordedEvent> batch = new ArrayList<>(1024);
    boolean stopping = false;
    try {
      while (true) {
        RecordedEvent first = stopping ? buffer.poll() : buffer.poll(1, TimeUnit.SECONDS);
        reportDrops(false);
        if (first == null) {
          if (stopping) {
            flush();
            return;
          }
          continue;
        }
        batch.add(first);
        buffer.drainTo(batch, 1023);
        for (RecordedEvent e : batch) {
          if (e == POISON) {
            stopping = true;
          } else {
            write(e);
          }
        }
        batch.clear();
        if (buffer.isEmpty()) {
          flush();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void write(RecordedEvent e) {
    try {
      out.write(format.encode(e));
      out.write('\n');
      written.incrementAndGet();
    } catch (IOException | RuntimeException ex) {
      if (failed.getAndIncrement() == 0) {
        LOG.error("recording to {} failed for {} {}; later failures are counted only", file,
            e.kind(), e.key(), ex);
      }
    }
  }

  private void flush() {
    try {
      out.flush();
    } catch (IOException ex) {
      if (failed.getAndIncrement() == 0) {
        LOG.error("flushing the recording {} failed", file, ex);
      }
    }
  }

  private void reportDrops(boolean force) {
    long now = System.nanoTime();
    long total = dropped.get();
    if (total > reportedDrops && (force || now - lastReportNanos >= 1_000_000_000L)) {
      LOG.warn("recording {}: buffer of {} full, dropped {} events ({} in all)", file,
          buffer.remainingCapacity() + buffer.size(), total - reportedDrops, total);
      reportedDrops = total;
      lastReportNanos = now;
    }
  }

  /**
   * Stops accepting events, writes what is buffered, closes the file and logs the totals. Waits up to
   * 10 seconds for the writer.
   */
  @Override
  public void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    // the buffer may be full: wait for room for the marker (only the owner waits here)
    boolean marked = buffer.offer(POISON, 10, TimeUnit.SECONDS);
    if (marked) {
      writer.join(TimeUnit.SECONDS.toMillis(10));
    }
    if (writer.isAlive()) {
      writer.interrupt();
      writer.join(1000);
    }
    reportDrops(true);
    try {
      out.close();
    } catch (IOException e) {
      LOG.error("closing the recording {} failed", file, e);
    }
    LOG.info("recording {}: {} events written, {} dropped, {} failed", file, written.get(),
        dropped.get(), failed.get());
  }
}
