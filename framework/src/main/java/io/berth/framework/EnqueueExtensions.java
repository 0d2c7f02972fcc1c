package io.berth.framework;

import java.util.List;

/**
 * Implemented by plugins that reject pods (PreEnqueue, PreFilter, Filter, Reserve, Permit): the
 * cluster events after which a pod they rejected may be schedulable, each with a hint. A
 * rejecting plugin that does not implement this is treated as interested in every event.
 */
public interface EnqueueExtensions {
  List<ClusterEventWithHint> eventsToRegister();
}
