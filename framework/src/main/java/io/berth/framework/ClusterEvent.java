package io.berth.framework;

/**
 * A change in the cluster, or a registration for such changes: a resource and action bits, with a
 * label for logs and metrics. Immutable.
 */
public record ClusterEvent(EventResource resource, long actionType, String label) {
  public ClusterEvent(EventResource resource, long actionType) {
    this(resource, actionType, resource.label() + ActionType.describe(actionType));
  }

  /** The event used when everything should be retried (flushes, unknown changes). */
  public static final ClusterEvent WILDCARD =
      new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "WildCardEvent");
  /** Unschedulable pods that waited too long are retried with this event. */
  public static final ClusterEvent UNSCHEDULABLE_TIMEOUT =
      new ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout");
  /** An assigned pod was deleted: resources were freed. */
  public static final ClusterEvent ASSIGNED_POD_DELETE =
      new ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete");

  public boolean isWildcard() {
    return resource == EventResource.WILDCARD && actionType == ActionType.ALL;
  }

  /** Whether this registration matches the incoming {@code event}. */
  public boolean matches(ClusterEvent event) {
    return isWildcard()
        || (resource.covers(event.resource) && (actionType & event.actionType) != 0);
  }
}
