package io.berth.controller;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Test helper that proves calls arrive in concurrent batches of expected sizes: every call blocks in
 * {@link #arrive()} until as many calls as the next expected batch size are waiting together, then they are all
 * released. A call beyond the expected size, or a batch that never fills, is recorded as a violation. Needs an
 * executor with at least as many threads as the largest batch. Thread-safe: state guarded by {@code lock}.
 */
public final class BatchGate {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private final Duration patience;
  // guarded by lock
  private final Deque<Integer> expected;
  // guarded by lock
  private final List<Integer> observed = new ArrayList<>();
  // guarded by lock
  private final List<String> violations = new ArrayList<>();
  // guarded by lock
  private int waiting;
  // guarded by lock
  private long generation;

  public BatchGate(List<Integer> expectedSizes, Duration patience) {
    this.expected = new ArrayDeque<>(expectedSizes);
    this.patience = patience;
  }

  /** Blocks the calling call until its batch is complete (or returns at once once the expected batches are done). */
  public void arrive() throws InterruptedException {
    lock.lock();
    try {
      if (expected.isEmpty()) {
        violations.add("a call after all expected batches " + observed);
        return;
      }
      waiting++;
      int size = expected.peek();
      if (waiting == size) {
        observed.add(size);
        expected.poll();
        waiting = 0;
        generation++;
        released.signalAll();
        return;
      }
      long mine = generation;
      long nanos = patience.toNanos();
      while (generation == mine) {
        if (nanos <= 0) {
          violations.add("batch of " + size + " never filled: only " + waiting + " calls arrived after " + observed);
          generation++;
          released.signalAll();
          return;
        }
        nanos = released.awaitNanos(nanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** The batch sizes released so far, in order. */
  public List<Integer> observed() {
    lock.lock();
    try {
      return List.copyOf(observed);
    } finally {
      lock.unlock();
    }
  }

  /** The first violation, if any. */
  public Optional<String> violation() {
    lock.lock();
    try {
      return violations.stream().findFirst();
    } finally {
      lock.unlock();
    }
  }
}
