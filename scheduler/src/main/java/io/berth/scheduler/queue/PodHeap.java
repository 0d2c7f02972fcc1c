package io.berth.scheduler.queue;

import io.berth.framework.QueuedPodInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A binary min-heap of queued pods keyed by {@code namespace/name}, as upstream's
 * {@code backend/heap}: an array heap plus a key-to-slot index, so lookup is O(1) and add, update,
 * remove and pop are O(log n). Not thread-safe: guarded by the scheduling queue's lock.
 *
 * <p>The index must always hold, for every key, the slot of the item with that key; every swap
 * updates both slots. Nullable returns are deliberate (internal hot path).
 */
final class PodHeap {
  /** Strict weak ordering: whether {@code a} comes out before {@code b}. */
  @FunctionalInterface
  interface Less {
    boolean less(QueuedPodInfo a, QueuedPodInfo b);
  }

  private final Less less;
  private final List<QueuedPodInfo> items = new ArrayList<>();
  private final Map<String, Integer> slots = new HashMap<>();

  PodHeap(Less less) {
    this.less = less;
  }

  int size() {
    return items.size();
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  boolean contains(String key) {
    return slots.containsKey(key);
  }

  /** The item with this key, or null. */
  QueuedPodInfo get(String key) {
    Integer slot = slots.get(key);
    return slot == null ? null : items.get(slot);
  }

  /** Adds the item, or replaces the one with the same key and restores heap order. */
  void addOrUpdate(QueuedPodInfo pInfo) {
    String key = pInfo.key();
    Integer slot = slots.get(key);
    if (slot != null) {
      items.set(slot, pInfo);
      fix(slot);
      return;
    }
    items.add(pInfo);
    slots.put(key, items.size() - 1);
    up(items.size() - 1);
  }

  /** Restores heap order after the item with this key changed in place; false if absent. */
  boolean fix(String key) {
    Integer slot = slots.get(key);
    if (slot == null) {
      return false;
    }
    fix(slot);
    return true;
  }

  /** Removes and returns the item with this key, or null. */
  QueuedPodInfo remove(String key) {
    Integer slot = slots.get(key);
    return slot == null ? null : removeAt(slot);
  }

  /** The first item, or null when empty. */
  QueuedPodInfo peek() {
    return items.isEmpty() ? null : items.get(0);
  }

  /** Removes and returns the first item, or null when empty. */
  QueuedPodInfo pop() {
    return items.isEmpty() ? null : removeAt(0);
  }

  /** The items in heap (not sorted) order. */
  List<QueuedPodInfo> list() {
    return new ArrayList<>(items);
  }

  private QueuedPodInfo removeAt(int slot) {
    int last = items.size() - 1;
    QueuedPodInfo removed = items.get(slot);
    if (slot != last) {
      swap(slot, last);
    }
    items.remove(last);
    slots.remove(removed.key());
    if (slot != last) {
      fix(slot);
    }
    return removed;
  }

  private void fix(int slot) {
    if (!down(slot)) {
      up(slot);
    }
  }

  private void up(int slot) {
    while (slot > 0) {
      int parent = (slot - 1) / 2;
      if (!less.less(items.get(slot), items.get(parent))) {
        return;
      }
      swap(slot, parent);
      slot = parent;
    }
  }

  /** Sifts down; returns whether the item moved. */
  private boolean down(int start) {
    int slot = start;
    int n = items.size();
    while (true) {
      int child = 2 * slot + 1;
      if (child >= n) {
        break;
      }
      int right = child + 1;
      if (right < n && less.less(items.get(right), items.get(child))) {
        child = right;
      }
      if (!less.less(items.get(child), items.get(slot))) {
        break;
      }
      swap(slot, child);
      slot = child;
    }
    return slot > start;
  }

  private void swap(int i, int j) {
    QueuedPodInfo a = items.get(i);
    QueuedPodInfo b = items.get(j);
    items.set(i, b);
    items.set(j, a);
    slots.put(b.key(), i);
    slots.put(a.key(), j);
  }
}
