package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * PostFilter: called when no node passed Filter, e.g. to preempt. Success with a nomination ends
 * the PostFilter phase; Unschedulable passes to the next PostFilter plugin. Runs on the scheduling
 * thread.
 */
public interface PostFilterPlugin extends Plugin {
  PostFilterResult postFilter(CycleState state, Pod pod, NodeToStatus filteredNodeStatus);
}
