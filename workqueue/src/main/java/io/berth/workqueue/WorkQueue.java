package io.berth.workqueue;

import java.util.Optional;

/**
 * A work queue with client-go semantics: a set of items that need processing, handed out in FIFO
 * order to worker threads, such that one item is never processed by two workers at once.
 *
 * <ul>
 *   <li>An item added while it is already queued is not queued twice ({@code add} collapses).
 *   <li>An item added while a worker is processing it is not handed out again at once: it is
 *       queued again exactly once when that worker calls {@link #done}.
 *   <li>{@link #get} blocks until an item is available or the queue is shut down.
 * </ul>
 *
 * <p>Items are compared with {@code equals}/{@code hashCode} (controllers use {@code
 * "namespace/name"} keys); they must be immutable while in the queue, and {@code null} is
 * rejected. All methods are thread-safe; any number of producers and workers may share a queue.
 * The typical worker loop:
 *
 * <pre>{@code
 * while (true) {
 *   Optional<String> key = queue.get();
 *   if (key.isEmpty()) return;          // shut down
 *   try { sync(key.get()); } finally { queue.done(key.get()); }
 * }
 * }</pre>
 */
public interface WorkQueue<T> {

  /**
   * Marks {@code item} as needing processing. Ignored once the queue is shutting down.
   *
   * @throws NullPointerException if {@code item} is null
   */
  void add(T item);

  /**
   * The number of items waiting to be handed out, for information only (metrics, logs, tests).
   * Never gate a call to {@link #add} or {@link #get} on it: the value can be stale as soon as it
   * is returned.
   */
  int len();

  /**
   * Blocks until an item can be handed out and returns it; the caller then owns the item until it
   * calls {@link #done} with it, and must always do so. After {@link #shutDown()} the items still
   * queued are handed out as usual; once none is left, returns {@link Optional#empty()}, which
   * tells the worker to exit.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  Optional<T> get() throws InterruptedException;

  /**
   * Marks {@code item}, returned earlier by {@link #get}, as done. If it was added again while
   * being processed, it is queued again now. Calling it for an item that is not being processed
   * does nothing.
   */
  void done(T item);

  /**
   * Makes the queue ignore new items and tells workers to exit: {@link #get} hands out what is
   * already queued, then returns empty. Does not wait. Safe to call more than once, and safe to
   * call while another thread is in {@link #shutDownWithDrain()} to stop it waiting.
   */
  void shutDown();

  /**
   * Like {@link #shutDown()}, then waits until every item handed out by {@link #get} has been
   * marked {@link #done}. Workers must keep calling {@code done} after the shut down starts, or
   * this waits forever; a concurrent {@link #shutDown()} ends the wait early.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void shutDownWithDrain() throws InterruptedException;

  /** Whether {@link #shutDown()} or {@link #shutDownWithDrain()} has been called. */
  boolean shuttingDown();
}
