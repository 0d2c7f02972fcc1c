package io.berth.scheduler.queue;

/** Where a rejected pod should go after an event, strongest last. Immutable. */
enum QueueingStrategy {
  /** No hint of its rejectors said QUEUE: it stays unschedulable. */
  QUEUE_SKIP,
  /** An Unschedulable rejector said QUEUE: backoffQ if still backing off, else activeQ. */
  QUEUE_AFTER_BACKOFF,
  /** A Pending rejector said QUEUE: straight to activeQ. */
  QUEUE_IMMEDIATELY
}
