package io.berth.workqueue;

/**
 * The values a queue offers for its gauges, read on demand (for example when {@code /metrics} is
 * scraped) rather than pushed on every operation. Implemented by the queues; thread-safe (each
 * call takes the queue's lock briefly), so any thread may read them.
 */
public interface QueueGauges {

  /** {@code workqueue_depth}: items added and not yet handed out by {@code get}. */
  int depth();

  /**
   * {@code workqueue_unfinished_work_seconds}: the summed age of all items being processed now.
   * Large values mean stuck workers; how fast it grows tells how many.
   */
  double unfinishedWorkSeconds();

  /** {@code workqueue_longest_running_processor_seconds}: the age of the oldest item in work. */
  double longestRunningProcessorSeconds();
}
