package io.berth.embedded.server;

import java.util.ArrayList;
import java.util.List;

/**
 * A bounded ring buffer of one resource type's most recent watch events, so a watch can resume from a
 * resourceVersion. A watch from {@code rv} can be served exactly when {@code rv >= oldestServable()}: every event
 * after {@code rv} is still in the buffer. Older requests get 410 Gone, as kube-apiserver's watch cache answers once
 * its window has moved on.
 *
 * <p>Not thread-safe: guarded by the {@link ObjectStore} lock.
 */
final class EventHistory {

  private final WatchEvent[] ring;
  private int start;
  private int size;
  /** The resourceVersion of the newest event dropped from the buffer; 0 while nothing was dropped. */
  private long evictedThrough;

  EventHistory(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("history capacity must be at least 1, got " + capacity);
    }
    this.ring = new WatchEvent[capacity];
  }

  void append(WatchEvent event) {
    if (size == ring.length) {
      evictedThrough = ring[start].resourceVersion();
      ring[start] = event;
      start = (start + 1) % ring.length;
    } else {
      ring[(start + size) % ring.length] = event;
      size++;
    }
  }

  /** The lowest resourceVersion a watch may resume from. */
  long oldestServable() {
    return evictedThrough;
  }

  /** The events with a resourceVersion greater than {@code rv}, oldest first; callers check servability first. */
  List<WatchEvent> after(long rv) {
    // Binary search for the first event newer than rv: versions in the ring are strictly increasing.
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ring[(start + mid) % ring.length].resourceVersion() <= rv) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    List<WatchEvent> out = new ArrayList<>(size - lo);
    for (int i = lo; i < size; i++) {
      out.add(ring[(start + i) % ring.length]);
    }
    return out;
  }

  /** Drops the events up to and including {@code rv}, so older watches get 410 (compaction, fault injection). */
  void compactThrough(long rv) {
    while (size > 0 && ring[start].resourceVersion() <= rv) {
      ring[start] = null;
      start = (start + 1) % ring.length;
      size--;
    }
    evictedThrough = Math.max(evictedThrough, rv);
  }
}
