package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import java.util.Map;
import java.util.Set;

/**
 * A point-in-time copy of the {@link SchedulerCache} for debugging: every NodeInfo it holds (nodes
 * deleted while pods remain included, without node) as an independent copy, and the UIDs of the
 * assumed pods. Immutable maps and sets; the NodeInfo copies belong to the caller.
 */
public record CacheDump(Map<String, NodeInfo> nodes, Set<String> assumedPods) {
  public CacheDump {
    nodes = Map.copyOf(nodes);
    assumedPods = Set.copyOf(assumedPods);
  }
}
