package io.berth.simulator.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The dashboard's live event stream: the last {@code capacity} events (Kubernetes Events of every namespace and the
 * simulator's own steps), numbered 1, 2, 3... in the order they were appended. Readers ask for the events after the
 * last number they saw ({@link #after}), or wait for them ({@link #awaitAfter}, what the server-sent-events stream
 * does); a reader that fell more than {@code capacity} behind gets the oldest retained events and can tell from the
 * gap in numbers that some were dropped.
 *
 * <p>A ring: {@code ring[(seq - 1) % capacity]} holds event {@code seq} for the newest {@code capacity} numbers;
 * appending overwrites the oldest. Thread-safe: every field is guarded by {@code lock}; waiters sleep on
 * {@code appended}.
 */
public final class EventBuffer {

  /** One entry of the stream. Immutable. */
  public record Entry(long seq, Instant time, String type, String reason, String object, String message,
      String source) {
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition appended = lock.newCondition();
  private final Entry[] ring;
  /** The number of the newest event; 0 when none. Guarded by {@code lock}. */
  private long last;

  public EventBuffer(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive, got " + capacity);
    }
    this.ring = new Entry[capacity];
  }

  /** Appends an event and wakes the waiting readers; returns its number. */
  public long append(Instant time, String type, String reason, String object, String message, String source) {
    lock.lock();
    try {
      long seq = ++last;
      ring[(int) ((seq - 1) % ring.length)] = new Entry(seq, time, type, reason, object, message, source);
      appended.signalAll();
      return seq;
    } finally {
      lock.unlock();
    }
  }

  /** The number of the newest event (0 when none). */
  public long lastSeq() {
    lock.lock();
    try {
      return last;
    } finally {
      lock.unlock();
    }
  }

  /** The retained events numbered above {@code seq}, oldest first, at most {@code max} of them. */
  public List<Entry> after(long seq, int max) {
    lock.lock();
    try {
      return copyAfter(seq, max);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Like {@link #after}, but waits up to {@code timeout} for an event above {@code seq} when there is none yet;
   * empty when the time passed. Throws {@link InterruptedException} if interrupted while waiting.
   */
  public List<Entry> awaitAfter(long seq, int max, Duration timeout) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (last <= seq) {
        if (nanos <= 0) {
          return List.of();
        }
        nanos = appended.awaitNanos(nanos);
      }
      return copyAfter(seq, max);
    } finally {
      lock.unlock();
    }
  }

  // caller holds lock
  private List<Entry> copyAfter(long seq, int max) {
    long oldest = Math.max(1, last - ring.length + 1);
    long from = Math.max(seq + 1, oldest);
    long to = Math.min(last, from + max - 1);
    List<Entry> out = new ArrayList<>((int) Math.max(0, to - from + 1));
    for (long s = from; s <= to; s++) {
      out.add(ring[(int) ((s - 1) % ring.length)]);
    }
    return out;
  }
}
