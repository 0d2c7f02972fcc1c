package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * A plugin that knows which pods are placed all or nothing (Coscheduling): the scheduler asks it
 * whether a popped pod opens a group scheduling cycle (KEP-4671's workload scheduling cycle), in
 * which every queued member is placed on one snapshot and assumed together or not at all. A
 * profile uses the first enabled plugin implementing it. Called on the scheduling thread and on
 * the informer's handler thread (a member entering activeQ releases its gated siblings), so it
 * must be thread-safe; must be cheap, must not mutate the pods, and must not throw for a
 * malformed group (answer empty: the per-pod cycle then reports the problem).
 */
public interface PodGroupPlugin extends Plugin {
  /** The group {@code pod} belongs to, when it has one whose members are placed together. */
  Optional<PodGroupRef> podGroupOf(Pod pod);

  /** Every pod the informer knows in {@code group}, bound or not (shared: never mutate). */
  List<Pod> members(PodGroupRef group);

  /**
   * At most how many members one group cycle places (at least 1). A group with more queued
   * members is placed in chunks of this size, each all or nothing; a chunk short of
   * {@code minMember} is assumed and waits at Permit for the later chunks (the per-pod path's
   * wait). By default unbounded.
   */
  default int maxGroupCycleMembers() {
    return Integer.MAX_VALUE;
  }
}
