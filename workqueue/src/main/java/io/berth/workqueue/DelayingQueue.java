package io.berth.workqueue;

import java.time.Duration;

/**
 * A {@link WorkQueue} that can also add an item later, so that failed items are retried without
 * a hot loop.
 *
 * <p>Waiting items are kept in a min-heap on their ready time, one entry per item: adding an item
 * that is already waiting keeps the earlier of the two ready times. A waiting item is independent
 * of the queue proper: when its time comes it is {@link #add added} with the usual collapsing
 * rules. Waiting items are never dropped, however many there are, until the queue shuts down,
 * which discards them. Thread-safe, like {@link WorkQueue}.
 */
public interface DelayingQueue<T> extends WorkQueue<T> {

  /**
   * Adds {@code item} once {@code delay} has passed on the queue's clock; a zero or negative delay
   * adds it now. Ignored once the queue is shutting down. Counts towards {@code
   * workqueue_retries_total}.
   *
   * @throws NullPointerException if {@code item} or {@code delay} is null
   */
  void addAfter(T item, Duration delay);
}
