package io.berth.framework;

/** A registration: the event a plugin cares about and its hint function. Immutable. */
public record ClusterEventWithHint(ClusterEvent event, QueueingHintFn hint) {
  public static ClusterEventWithHint always(ClusterEvent event) {
    return new ClusterEventWithHint(event, QueueingHintFn.ALWAYS_QUEUE);
  }
}
