package io.berth.framework;

/** A queueing hint's verdict on one event for one rejected pod. */
public enum QueueingHint {
  /** The event may make the pod schedulable: move it to activeQ/backoffQ. */
  QUEUE,
  /** The event does not help this pod: leave it where it is. */
  QUEUE_SKIP
}
