package io.berth.scheduler.queue;

/**
 * Told about every move of a pod into one of the scheduling queue's internal queues, for
 * {@code scheduler_queue_incoming_pods_total{queue,event}}. Called with the queue's lock held, so
 * implementations must be quick, thread-safe and must not call back into the queue; {@link #NOOP}
 * when nobody listens.
 *
 * <p>Event labels are upstream's: {@link #POD_ADD}, {@link #POD_UPDATE},
 * {@link #SCHEDULE_ATTEMPT_FAILURE}, {@link #BACKOFF_COMPLETE}, {@link #FORCE_ACTIVATE},
 * {@link #POP_FROM_BACKOFF_Q}, or the
 * label of the cluster event that moved the pod ("UnschedulableTimeout", "NodeAdd", ...).
 */
@FunctionalInterface
public interface QueueListener {
  /** An unscheduled pod was added to the queue. */
  String POD_ADD = "UnschedulablePodAdd";
  /** An unscheduled pod was updated. */
  String POD_UPDATE = "UnschedulablePodUpdate";
  /** A scheduling attempt failed and the pod came back. */
  String SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure";
  /** The pod's backoff expired. */
  String BACKOFF_COMPLETE = "BackoffComplete";
  /** A plugin asked to activate the pod. */
  String FORCE_ACTIVATE = "ForceActivate";
  /** activeQ was empty, so pop took the pod from backoffQ (SchedulerPopFromBackoffQ). */
  String POP_FROM_BACKOFF_Q = "PopFromBackoffQ";

  QueueListener NOOP = (queue, event) -> { };

  /** The pod moved into {@code queue} because of {@code event}. */
  void podMoved(QueueName queue, String event);
}
