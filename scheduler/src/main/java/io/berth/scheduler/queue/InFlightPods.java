package io.berth.scheduler.queue;

import io.berth.framework.ClusterEvent;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pods popped for a scheduling attempt that has not ended yet ("in flight"), and the cluster
 * events received meanwhile, so that a pod rejected after an event it could not see is judged
 * against that event (upstream's {@code inFlightPods}/{@code inFlightEvents}). Not thread-safe:
 * guarded by the scheduling queue's lock.
 *
 * <p>Upstream keeps one linked list holding pod markers and events in arrival order; here every
 * pop and every event takes the next sequence number instead, and a pod's events are those with a
 * larger number than its pop. Events older than the oldest in-flight pod are needed by nobody and
 * are dropped when a pod is done, so the log only spans the oldest attempt still running.
 */
final class InFlightPods {
  /** An event recorded while pods were in flight. */
  record RecordedEvent(long seq, ClusterEvent event, Object oldObj, Object newObj) { }

  private static final class Attempt {
    final long seq;
    final Pod pod;
    boolean deleted;

    Attempt(long seq, Pod pod) {
      this.seq = seq;
      this.pod = pod;
    }
  }

  private final Map<String, Attempt> byUid = new HashMap<>();
  private final TreeMap<Long, String> uidBySeq = new TreeMap<>();
  private final ArrayDeque<RecordedEvent> events = new ArrayDeque<>();
  private long nextSeq;

  /** Starts tracking a popped pod; false if a pod with this UID is already in flight. */
  boolean popped(Pod pod) {
    String uid = uid(pod);
    if (byUid.containsKey(uid)) {
      return false;
    }
    long seq = nextSeq++;
    byUid.put(uid, new Attempt(seq, pod));
    uidBySeq.put(seq, uid);
    return true;
  }

  boolean contains(String uid) {
    return byUid.containsKey(uid);
  }

  int size() {
    return byUid.size();
  }

  /** Events currently retained (for metrics and tests). */
  int eventCount() {
    return events.size();
  }

  List<Pod> pods() {
    List<Pod> out = new ArrayList<>(byUid.size());
    for (Attempt a : byUid.values()) {
      out.add(a.pod);
    }
    return out;
  }

  /** Records the event if any pod is in flight; returns whether it did. */
  boolean recordIfAnyInFlight(ClusterEvent event, Object oldObj, Object newObj) {
    if (byUid.isEmpty()) {
      return false;
    }
    events.addLast(new RecordedEvent(nextSeq++, event, oldObj, newObj));
    return true;
  }

  /** Records the events if the pod with this UID is in flight; returns whether it is. */
  boolean recordIfInFlight(String uid, List<ClusterEvent> podEvents, Object oldObj,
      Object newObj) {
    if (!byUid.containsKey(uid)) {
      return false;
    }
    for (ClusterEvent e : podEvents) {
      events.addLast(new RecordedEvent(nextSeq++, e, oldObj, newObj));
    }
    return true;
  }

  /** The events received since the pod was popped, oldest first; null if it is not in flight. */
  List<RecordedEvent> eventsSincePopped(String uid) {
    Attempt a = byUid.get(uid);
    if (a == null) {
      return null;
    }
    List<RecordedEvent> out = new ArrayList<>();
    Iterator<RecordedEvent> newestFirst = events.descendingIterator();
    while (newestFirst.hasNext()) {
      RecordedEvent e = newestFirst.next();
      if (e.seq < a.seq) {
        break;
      }
      out.add(e);
    }
    Collections.reverse(out);
    return out;
  }

  /** Remembers that the in-flight pod was deleted, so its attempt must not requeue it. */
  void markDeleted(String uid) {
    Attempt a = byUid.get(uid);
    if (a != null) {
      a.deleted = true;
    }
  }

  boolean isDeleted(String uid) {
    Attempt a = byUid.get(uid);
    return a != null && a.deleted;
  }

  /** Ends the pod's attempt and drops the events no remaining in-flight pod can need. */
  void done(String uid) {
    Attempt a = byUid.remove(uid);
    if (a == null) {
      return;
    }
    uidBySeq.remove(a.seq);
    long oldest = uidBySeq.isEmpty() ? Long.MAX_VALUE : uidBySeq.firstKey();
    while (!events.isEmpty() && events.peekFirst().seq < oldest) {
      events.pollFirst();
    }
  }

  /** The pod's UID, or {@code namespace/name} for a pod without one (tests, dry runs). */
  static String uid(Pod pod) {
    String uid = pod.getMetadata().getUid();
    return uid == null || uid.isEmpty() ? key(pod) : uid;
  }

  /** {@code namespace/name}, the key of every internal queue. */
  static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
