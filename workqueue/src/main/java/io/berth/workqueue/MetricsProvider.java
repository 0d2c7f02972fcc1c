package io.berth.workqueue;

/**
 * Makes the metrics of each named queue, like client-go's {@code workqueue.MetricsProvider}.
 * Queues call {@link #newQueueMetrics} once, when they are built with a non-empty name; unnamed
 * queues get {@link QueueMetrics#NOOP}. Implementations must be thread-safe. {@link #NOOP} is the
 * default; {@link MicrometerMetricsProvider} publishes the client-go metric names.
 */
public interface MetricsProvider {

  /** Publishes nothing. */
  MetricsProvider NOOP =
      new MetricsProvider() {
        @Override
        public QueueMetrics newQueueMetrics(String name, QueueGauges gauges) {
          return QueueMetrics.NOOP;
        }

        @Override
        public String toString() {
          return "MetricsProvider.NOOP";
        }
      };

  /**
   * Creates the metrics for the queue called {@code name}.
   *
   * @param name the queue's name, the value of the {@code name} label
   * @param gauges the queue's current values, to read whenever the gauges are collected; a
   *     provider may keep it only weakly, the queue holds it for its own lifetime
   */
  QueueMetrics newQueueMetrics(String name, QueueGauges gauges);
}
