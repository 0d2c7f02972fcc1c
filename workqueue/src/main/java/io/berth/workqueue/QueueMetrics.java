package io.berth.workqueue;

/**
 * Receives one queue's events, as {@link MetricsProvider#newQueueMetrics} made it. The queue calls
 * these methods while holding its lock, so implementations must be fast and must never call back
 * into the queue. Must be thread-safe (different queues may share meters).
 */
public interface QueueMetrics {

  /** Does nothing; a queue given this one does not even read its clock for metrics. */
  QueueMetrics NOOP =
      new QueueMetrics() {
        @Override
        public void added() {}

        @Override
        public void queued(long nanos) {}

        @Override
        public void worked(long nanos) {}

        @Override
        public void retried() {}

        @Override
        public String toString() {
          return "QueueMetrics.NOOP";
        }
      };

  /** {@code workqueue_adds_total}: an item was newly marked as needing processing. */
  void added();

  /** {@code workqueue_queue_duration_seconds}: an item waited {@code nanos} before {@code get}. */
  void queued(long nanos);

  /** {@code workqueue_work_duration_seconds}: processing an item took {@code nanos}. */
  void worked(long nanos);

  /** {@code workqueue_retries_total}: {@code addAfter} (or {@code addRateLimited}) was called. */
  void retried();
}
