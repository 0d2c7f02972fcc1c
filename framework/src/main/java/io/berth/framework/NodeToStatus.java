package io.berth.framework;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * Why each node was rejected in a cycle: the statuses of nodes that were filtered, plus the status
 * that applies to every node not in the map ({@link #absentNodesStatus()}, e.g. when PreFilter
 * narrowed the node set or rejected the pod outright). Not thread-safe: built by the scheduling
 * thread, then read by PostFilter on the same thread.
 */
public final class NodeToStatus {
  // confined to the scheduling thread
  private Map<String, Status> statuses = new HashMap<>();
  private Status absentNodesStatus = Status.unresolvable();

  /** Sizes the map for {@code n} more statuses, so that setting them does not rehash. */
  public void reserve(int n) {
    if (statuses.isEmpty() && n > 12) {
      statuses = new HashMap<>(n * 4 / 3 + 1);
    }
  }

  public void set(String nodeName, Status status) {
    statuses.put(nodeName, status);
  }

  /** The status of a node: its own, or the absent-nodes status. */
  public Status get(String nodeName) {
    return statuses.getOrDefault(nodeName, absentNodesStatus);
  }

  public Map<String, Status> statuses() {
    return Collections.unmodifiableMap(statuses);
  }

  public Status absentNodesStatus() {
    return absentNodesStatus;
  }

  public void setAbsentNodesStatus(Status status) {
    this.absentNodesStatus = status;
  }

  public int size() {
    return statuses.size();
  }
}
