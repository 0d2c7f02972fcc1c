package io.berth.scheduler.queue;

import io.berth.framework.QueuedPodInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pods that were tried and found unschedulable, and pods gated by a PreEnqueue plugin, keyed by
 * {@code namespace/name}. Keeps the two counts apart (gated pods are not "unschedulable" in the
 * metrics). Not thread-safe: guarded by the scheduling queue's lock.
 *
 * <p>Each entry remembers whether it was gated when stored, because the pod's gating flag is
 * rewritten in place when PreEnqueue re-runs; the counts follow the stored flag, so they stay
 * exact whatever happens to the pod object meanwhile.
 */
final class UnschedulablePods {
  private record Entry(QueuedPodInfo pInfo, boolean gated) { }

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private int gatedCount;

  /** Stores or replaces the pod under its key. */
  void addOrUpdate(QueuedPodInfo pInfo) {
    Entry previous = entries.put(pInfo.key(), new Entry(pInfo, pInfo.isGated()));
    if (previous != null && previous.gated) {
      gatedCount--;
    }
    if (pInfo.isGated()) {
      gatedCount++;
    }
  }

  /** Removes and returns the pod with this key, or null. */
  QueuedPodInfo remove(String key) {
    Entry removed = entries.remove(key);
    if (removed == null) {
      return null;
    }
    if (removed.gated) {
      gatedCount--;
    }
    return removed.pInfo;
  }

  /** The pod with this key, or null. */
  QueuedPodInfo get(String key) {
    Entry e = entries.get(key);
    return e == null ? null : e.pInfo;
  }

  boolean contains(String key) {
    return entries.containsKey(key);
  }

  /** Whether the pod with this key was stored as gated. */
  boolean isStoredGated(String key) {
    Entry e = entries.get(key);
    return e != null && e.gated;
  }

  /** Pods stored as unschedulable (not gated). */
  int unschedulableCount() {
    return entries.size() - gatedCount;
  }

  int gatedCount() {
    return gatedCount;
  }

  int size() {
    return entries.size();
  }

  /** A snapshot of every stored pod, in insertion order, safe to iterate while moving pods. */
  List<QueuedPodInfo> list() {
    List<QueuedPodInfo> out = new ArrayList<>(entries.size());
    for (Entry e : entries.values()) {
      out.add(e.pInfo);
    }
    return out;
  }
}
