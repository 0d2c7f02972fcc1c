package io.berth.scheduler.queue;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.EventResource;

/** Cluster events used by the queue tests. Constants only. */
final class TestEvents {
  static final ClusterEvent NODE_ADD = new ClusterEvent(EventResource.NODE, ActionType.ADD);
  static final ClusterEvent NODE_TAINT =
      new ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT);
  static final ClusterEvent NODE_LABEL =
      new ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL);
  static final ClusterEvent PV_ADD =
      new ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD);
  static final ClusterEvent UNSCHEDULED_POD_LABEL =
      new ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE_POD_LABEL);

  private TestEvents() { }
}
