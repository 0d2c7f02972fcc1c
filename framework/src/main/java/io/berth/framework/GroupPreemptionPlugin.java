package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * Workload-aware preemption (KEP-4671's and upstream 1.36's {@code PodGroupPostFilter}): after a
 * group scheduling cycle could not place {@code minMember} members, picks lower-priority victims
 * whose removal lets the whole group fit, taking the placed members of a victim pod group all
 * together or not at all, and evicts them. The scheduler supplies the feasibility check (the group
 * cycle run on the snapshot without the victims, nothing assumed) and which victims belong
 * together. A profile uses the first enabled plugin implementing it. Called on the scheduling
 * thread.
 */
public interface GroupPreemptionPlugin extends Plugin {
  /** What the scheduler offers the plugin for one preemption attempt. */
  interface GroupFeasibility {
    /** Whether at least minMember members of the group fit once {@code victims} are gone. */
    boolean fitsWithout(List<Pod> victims);

    /** The pod group {@code pod} belongs to, if any: its placed members are victims together. */
    Optional<PodGroupRef> groupOf(Pod pod);
  }

  /**
   * Preempts for {@code group} (whose pending members are {@code members}): Success when victims
   * were chosen and evicted (the group retries when they are gone), Unschedulable saying why not.
   */
  Status preemptForGroup(PodGroupRef group, List<Pod> members, GroupFeasibility feasibility);
}
