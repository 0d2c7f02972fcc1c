package io.berth.scheduler.apidispatcher;

import io.berth.framework.ApiCacher.Outcome;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The dispatcher's calls, as upstream's {@code callQueue}: at most one call per object is held
 * (pending, or waiting behind the object's running call), objects wait in FIFO order of their
 * first pending call, and an object's calls never run concurrently. A call added for an object
 * that already has one is reconciled with it by relevance:
 * <ul>
 *   <li>less relevant than the held call: the new call is skipped;</li>
 *   <li>the held call waits (is not running): of another type it is overwritten; of the same type
 *       the new call merges it ({@link ApiCall#mergeFrom}) and it is overwritten;</li>
 *   <li>the held call runs: the new call (having merged it if of the same type) waits and is
 *       queued again when the running one is finalized; the running call keeps its own outcome
 *       (upstream reports a running call of the same type as overwritten although it still runs).</li>
 * </ul>
 * A call that is a no-op while no call for its object runs is skipped, and removes a waiting call
 * it replaced. {@link #syncObject} refreshes a held call from a newer version of its object and
 * drops it when that makes it a no-op. Completions are completed under the lock; the
 * dispatcher's callers only wait on them. Thread-safe: every field below is guarded by
 * {@code lock}.
 */
final class CallQueue {
  private final Map<String, Integer> relevances;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition available = lock.newCondition();
  // uid -> the newest call held for the object (pending, waiting behind a running call, or running)
  private final Map<String, QueuedCall> calls = new HashMap<>();
  // uids whose held call waits to be popped, in FIFO order; every one is a key of calls, not in running
  private final LinkedHashSet<String> pending = new LinkedHashSet<>();
  // uids whose call a dispatcher thread runs (popped and not yet finalized)
  private final Set<String> running = new HashSet<>();
  private boolean closed;

  CallQueue(Map<String, Integer> relevances) {
    this.relevances = Map.copyOf(relevances);
  }

  private int relevance(ApiCall call) {
    Integer r = relevances.get(call.type());
    if (r == null) {
      throw new IllegalArgumentException("API call type " + call.type() + " has no relevance"
          + " (known: " + relevances.keySet() + ")");
    }
    return r;
  }

  /**
   * Adds {@code c}, reconciling it with the object's held call; its completion says when it was
   * skipped (at once), overwritten or failed. After {@link #close()} it fails at once.
   */
  void add(QueuedCall c) {
    lock.lock();
    try {
      if (closed) {
        c.fail(new IllegalStateException("the API dispatcher is closed"));
        return;
      }
      int relevance = relevance(c.call);
      String uid = c.call.uid();
      QueuedCall held = calls.get(uid);
      if (held != null) {
        if (relevance < relevance(held.call)) {
          c.complete(Outcome.SKIPPED);
          return;
        }
        if (held.call.type().equals(c.call.type())) {
          try {
            c.call.mergeFrom(held.call);
          } catch (RuntimeException e) {
            c.fail(e);
            return;
          }
        }
        if (!held.running) {
          held.complete(Outcome.OVERWRITTEN);
        }
      }
      boolean behindRunning = running.contains(uid);
      if (behindRunning) {
        c.call.afterRunningCall();
      } else if (c.call.isNoOp()) {
        if (held != null) {
          removeWaiting(uid);
        }
        c.complete(Outcome.SKIPPED);
        return;
      }
      calls.put(uid, c);
      if (held == null) {
        pending.add(uid);
        available.signal();
      }
      // else the uid is already pending, or running and finalize queues it again
    } finally {
      lock.unlock();
    }
  }

  /** Drops the object's held call, which must not be running. */
  private void removeWaiting(String uid) {
    calls.remove(uid);
    pending.remove(uid);
  }

  /**
   * Takes the oldest pending object's call, blocking while there is none; empty once the queue is
   * closed and drained. The caller must {@link #finalize(QueuedCall)} the call after running it.
   */
  Optional<QueuedCall> pop() throws InterruptedException {
    lock.lock();
    try {
      while (pending.isEmpty()) {
        if (closed) {
          return Optional.empty();
        }
        available.await();
      }
      Iterator<String> first = pending.iterator();
      String uid = first.next();
      first.remove();
      QueuedCall c = calls.get(uid);
      running.add(uid);
      c.running = true;
      return Optional.of(c);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends {@code c}'s run: the object is forgotten, or, when a newer call arrived meanwhile, queued
   * again for it. Called before {@code c}'s completion is completed, so that a caller woken by it
   * finds the object free.
   */
  void finalize(QueuedCall c) {
    lock.lock();
    try {
      String uid = c.call.uid();
      running.remove(uid);
      c.running = false;
      QueuedCall newest = calls.get(uid);
      if (newest == c) {
        calls.remove(uid);
      } else if (newest != null) {
        pending.add(uid);
        available.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Syncs the object's held call with {@code pod}, a newer version of it, and returns the pod as it
   * will be once the call has run; a call that this makes a no-op is dropped (skipped) unless it
   * runs.
   */
  Pod syncObject(Pod pod, String uid) {
    lock.lock();
    try {
      QueuedCall c = calls.get(uid);
      if (c == null) {
        return pod;
      }
      Pod synced = c.call.sync(pod);
      if (!running.contains(uid) && c.call.isNoOp()) {
        removeWaiting(uid);
        c.complete(Outcome.SKIPPED);
      }
      return synced;
    } finally {
      lock.unlock();
    }
  }

  /** Refuses new calls from now on; {@link #pop()} drains what is pending, then answers empty. */
  void close() {
    lock.lock();
    try {
      closed = true;
      available.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Fails every call not yet popped (the dispatcher stops without draining); returns how many. */
  int abandonPending() {
    lock.lock();
    try {
      int n = 0;
      for (String uid : pending) {
        QueuedCall c = calls.remove(uid);
        c.fail(new IllegalStateException("the API dispatcher is closed"));
        n++;
      }
      pending.clear();
      // calls waiting behind a running call are failed too; the running ones finish on their own
      for (var it = calls.entrySet().iterator(); it.hasNext(); ) {
        QueuedCall c = it.next().getValue();
        if (!c.running) {
          c.fail(new IllegalStateException("the API dispatcher is closed"));
          it.remove();
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** The calls of {@code type} waiting to be popped (for the pending-calls gauge). */
  int pendingCount(String type) {
    lock.lock();
    try {
      int n = 0;
      for (String uid : pending) {
        if (calls.get(uid).call.type().equals(type)) {
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** Objects with a held call (for tests and shutdown). */
  int size() {
    lock.lock();
    try {
      return calls.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether a call for {@code uid} runs now (for tests). */
  boolean isRunning(String uid) {
    lock.lock();
    try {
      return running.contains(uid);
    } finally {
      lock.unlock();
    }
  }
}
