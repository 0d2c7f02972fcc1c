package io.berth.scheduler.queue;

/**
 * The internal queues a pending pod can sit in, with the label upstream's queue metrics use
 * ({@code scheduler_pending_pods{queue}}, {@code scheduler_queue_incoming_pods_total{queue}}).
 * Gated pods live in the unschedulable pool but are reported apart. Immutable.
 */
public enum QueueName {
  ACTIVE("active"),
  BACKOFF("backoff"),
  UNSCHEDULABLE("unschedulable"),
  GATED("gated");

  private final String label;

  QueueName(String label) {
    this.label = label;
  }

  /** The metric label value ("active"). */
  public String label() {
    return label;
  }
}
