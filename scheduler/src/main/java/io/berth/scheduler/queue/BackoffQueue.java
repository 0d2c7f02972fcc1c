package io.berth.scheduler.queue;

import io.berth.framework.QueueSortPlugin;
import io.berth.framework.QueuedPodInfo;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * kube-scheduler's backoffQ (upstream's {@code backoffQueue}): pods that may be retried once
 * their backoff ends, keyed by {@code namespace/name}. With SchedulerPopFromBackoffQ (KEP-5142) it
 * holds two heaps, as upstream 1.33+: {@code podBackoffQ} for pods rejected by plugins, ordered by
 * window-aligned expiry and, within a window, by QueueSort (so that {@link #popBackoff()} can
 * serve its head when activeQ is empty), and {@code podErrorBackoffQ} for pods that failed with an
 * error (no rejector plugins), ordered by expiry only and never popped early. With the gate off
 * it is one heap by expiry, QueueSort order on a tie, as v1.32.
 *
 * <p>Not thread-safe: guarded by the scheduling queue's lock, like the rest of {@link PodQueues}.
 */
final class BackoffQueue {
  private final PodBackoff backoff;
  private final boolean popFromBackoffQ;
  /** Pods rejected by plugins (every pod, with the gate off). */
  private final PodHeap podBackoffQ;
  /** Pods that failed with an error; empty with the gate off. */
  private final PodHeap podErrorBackoffQ;

  BackoffQueue(PodBackoff backoff, QueueSortPlugin sort, boolean popFromBackoffQ) {
    this.backoff = backoff;
    this.popFromBackoffQ = popFromBackoffQ;
    this.podBackoffQ = new PodHeap((a, b) -> {
      int byExpiry = backoff.expiry(a).compareTo(backoff.expiry(b));
      return byExpiry != 0 ? byExpiry < 0 : sort.less(a, b);
    });
    this.podErrorBackoffQ = new PodHeap((a, b) -> backoff.expiry(a).isBefore(backoff.expiry(b)));
  }

  int size() {
    return podBackoffQ.size() + podErrorBackoffQ.size();
  }

  boolean contains(String key) {
    return podBackoffQ.contains(key) || podErrorBackoffQ.contains(key);
  }

  /** The pod with this key, or null. */
  QueuedPodInfo get(String key) {
    QueuedPodInfo p = podBackoffQ.get(key);
    return p != null ? p : podErrorBackoffQ.get(key);
  }

  /**
   * Adds the pod (or replaces the one with its key): with the gate on, a pod without rejector
   * plugins goes to the error heap and is taken out of the other one.
   */
  void add(QueuedPodInfo pInfo) {
    if (popFromBackoffQ && pInfo.unschedulablePlugins().isEmpty()
        && pInfo.pendingPlugins().isEmpty()) {
      podErrorBackoffQ.addOrUpdate(pInfo);
      podBackoffQ.remove(pInfo.key());
      return;
    }
    podBackoffQ.addOrUpdate(pInfo);
    if (popFromBackoffQ) {
      podErrorBackoffQ.remove(pInfo.key());
    }
  }

  /** Restores order after the pod with this key changed in place. */
  void fix(String key) {
    if (!podBackoffQ.fix(key)) {
      podErrorBackoffQ.fix(key);
    }
  }

  /** Removes and returns the pod with this key, or null. */
  QueuedPodInfo remove(String key) {
    QueuedPodInfo p = podBackoffQ.remove(key);
    return p != null ? p : podErrorBackoffQ.remove(key);
  }

  /** Whether {@link #popBackoff()} has a pod to give (never an error-backoff pod). */
  boolean hasPoppable() {
    return popFromBackoffQ && !podBackoffQ.isEmpty();
  }

  /**
   * Removes and returns podBackoffQ's head, the pod whose backoff ends first (highest priority
   * within its window), even if still backing off; null when empty or with the gate off.
   */
  QueuedPodInfo popBackoff() {
    return popFromBackoffQ ? podBackoffQ.pop() : null;
  }

  /** Pops every pod whose backoff has ended at {@code now}, podBackoffQ's first, into {@code fn}. */
  void popEachCompleted(Instant now, Consumer<QueuedPodInfo> fn) {
    popEachCompleted(podBackoffQ, now, fn);
    popEachCompleted(podErrorBackoffQ, now, fn);
  }

  private void popEachCompleted(PodHeap heap, Instant now, Consumer<QueuedPodInfo> fn) {
    QueuedPodInfo head;
    while ((head = heap.peek()) != null && !backoff.isBackingOff(head, now)) {
      heap.pop();
      fn.accept(head);
    }
  }

  /** Every pod, in no particular order. */
  List<QueuedPodInfo> list() {
    List<QueuedPodInfo> out = podBackoffQ.list();
    out.addAll(podErrorBackoffQ.list());
    return out;
  }
}
