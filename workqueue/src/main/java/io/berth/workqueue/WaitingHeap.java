package io.berth.workqueue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The items of a {@link DelayingQueue} that wait for their ready time: a binary min-heap on ready
 * time plus an index from item to heap slot, so that adding an item that already waits is a map
 * look-up and (when the new time is earlier) one sift-up, like client-go's {@code
 * waitForPriorityQueue} with its {@code waitingEntryByData} map.
 *
 * <p>Invariants: {@code entries[0..size)} is a heap ordered by {@code readyAt} (compared by
 * subtraction, as {@link Clock} times must be); every entry's {@code slot} is its index in {@code
 * entries}; {@code byItem} maps exactly the items of those entries. Not thread-safe: confined to
 * the owning queue's lock.
 */
final class WaitingHeap<T> {

  /** One waiting item; {@code readyAt} only ever decreases while it waits. */
  private static final class Entry<T> {
    final T item;
    long readyAt;
    int slot;

    Entry(T item, long readyAt, int slot) {
      this.item = item;
      this.readyAt = readyAt;
      this.slot = slot;
    }
  }

  private Entry<T>[] entries = newArray(16);
  private int size;
  private final Map<T, Entry<T>> byItem = new HashMap<>();

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /**
   * Makes {@code item} wait until {@code readyAt}; if it already waits, keeps the earlier time.
   *
   * @return whether the earliest ready time of the heap moved earlier (so a thread timing its wait
   *     on the old head must be woken)
   */
  boolean offer(T item, long readyAt) {
    Entry<T> existing = byItem.get(item);
    if (existing != null) {
      if (readyAt - existing.readyAt >= 0) {
        return false;
      }
      existing.readyAt = readyAt;
      siftUp(existing.slot, existing);
      return existing.slot == 0;
    }
    if (size == entries.length) {
      entries = Arrays.copyOf(entries, size * 2);
    }
    Entry<T> entry = new Entry<>(item, readyAt, size);
    byItem.put(item, entry);
    siftUp(size++, entry);
    return entry.slot == 0;
  }

  /** The earliest ready time; the heap must not be empty. */
  long peekReadyAt() {
    return entries[0].readyAt;
  }

  /** Removes and returns the item with the earliest ready time; the heap must not be empty. */
  T poll() {
    Entry<T> head = entries[0];
    byItem.remove(head.item);
    Entry<T> last = entries[--size];
    entries[size] = null;
    if (size > 0) {
      siftDown(0, last);
    }
    return head.item;
  }

  /** Drops every waiting item. */
  void clear() {
    Arrays.fill(entries, 0, size, null);
    size = 0;
    byItem.clear();
  }

  /** Moves {@code entry} up from {@code slot} to its place. */
  private void siftUp(int slot, Entry<T> entry) {
    while (slot > 0) {
      int parent = (slot - 1) >>> 1;
      Entry<T> p = entries[parent];
      if (entry.readyAt - p.readyAt >= 0) {
        break;
      }
      entries[slot] = p;
      p.slot = slot;
      slot = parent;
    }
    entries[slot] = entry;
    entry.slot = slot;
  }

  /** Moves {@code entry} down from {@code slot} to its place. */
  private void siftDown(int slot, Entry<T> entry) {
    int half = size >>> 1;
    while (slot < half) {
      int child = 2 * slot + 1;
      Entry<T> c = entries[child];
      int right = child + 1;
      if (right < size && entries[right].readyAt - c.readyAt < 0) {
        child = right;
        c = entries[child];
      }
      if (entry.readyAt - c.readyAt <= 0) {
        break;
      }
      entries[slot] = c;
      c.slot = slot;
      slot = child;
    }
    entries[slot] = entry;
    entry.slot = slot;
  }

  @SuppressWarnings("unchecked")
  private static <T> Entry<T>[] newArray(int n) {
    return (Entry<T>[]) new Entry<?>[n];
  }
}
